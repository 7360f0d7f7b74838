"""Loans (rulebook 8.2) and loan operations (8.10)."""

from __future__ import annotations

from .errors import IllegalAction
from .state import Company, GameState

LOAN = 50
INTEREST = 5
MAX_LOANS = {"minor": 2, "major": 5, "national": 100}
"""8.2: 2 for a minor, 5 for a major; the national railway has no limit (18xx.games
caps the RSR at 100; the CN never borrows)."""


def loans_left(company: Company) -> int:
    """How many more loans the company may take."""
    return max(0, MAX_LOANS[company.type] - company.loans)


def borrowing_power(company: Company) -> int:
    """Cash plus what the company could still borrow (45 net per loan)."""
    return company.cash + (LOAN - INTEREST) * loans_left(company)


def take_loan(state: GameState, company: Company) -> None:
    """One loan: 50 from the bank less the first 5 interest paid at once (8.2)."""
    if loans_left(company) <= 0:
        raise IllegalAction(f"{company.sym} already has the most loans it may take")
    company.loans += 1
    company.cash += LOAN - INTEREST
    state.bank -= LOAN - INTEREST
    state.log.append(f"{company.sym} takes a loan (+{LOAN - INTEREST} after interest)")


def borrow_for(state: GameState, company: Company, amount: int) -> None:
    """Take the fewest loans that let the company pay ``amount`` (8.2)."""
    while company.cash < amount:
        take_loan(state, company)


def pay_interest(state: GameState, company: Company) -> bool:
    """8.10: pay 5 per loan held at the start of the round, borrowing if needed.
    Returns False if it cannot be paid even with every loan allowed (nationalize)."""
    due = INTEREST * company.loans_due
    while company.cash < due and loans_left(company) > 0:
        take_loan(state, company)
    if company.cash < due:
        return False
    company.cash -= due
    state.bank += due
    if due:
        state.log.append(f"{company.sym} pays {due} interest")
    return True


def repay_loans(state: GameState, company: Company) -> None:
    """8.10: a company with 50 in its treasury repays as many loans as it can."""
    repaid = 0
    while company.loans and company.cash >= LOAN:
        company.loans -= 1
        company.cash -= LOAN
        state.bank += LOAN
        repaid += 1
    if repaid:
        state.log.append(f"{company.sym} repays {repaid} loan(s)")
