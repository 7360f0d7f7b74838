// Troika's game page: history slider, live updates (server-sent events), map zoom.
// Everything shown comes from the server as escaped HTML; this script only moves between moments.
"use strict";
(function () {
  const main = document.getElementById("moment");
  if (!main) { return; }
  const base = main.dataset.base;
  const slider = document.getElementById("slider");
  const badge = document.getElementById("live-state");
  let total = Number(main.dataset.total);
  let shown = Number(main.dataset.at);
  let following = main.dataset.live === "1";
  let connected = false;  // the live updates' stream is open
  let zoom = 1;
  let wanted = null;
  let loading = false;

  // Every time on the page in one form, the server's ("05 Dec 2026 17:27 UTC"), in the reader's zone.
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  function two(n) { return String(n).padStart(2, "0"); }
  function zone(d) {
    const off = -d.getTimezoneOffset();
    if (off === 0) { return "UTC"; }
    const a = Math.abs(off);
    return "UTC" + (off > 0 ? "+" : "-") + Math.floor(a / 60) + (a % 60 ? ":" + two(a % 60) : "");
  }
  function localTimes() {
    for (const t of main.querySelectorAll("time[datetime]")) {
      const d = new Date(t.getAttribute("datetime"));
      if (!isNaN(d)) {
        t.textContent = two(d.getDate()) + " " + MONTHS[d.getMonth()] + " " + d.getFullYear() + " " +
          two(d.getHours()) + ":" + two(d.getMinutes()) + " " + zone(d);
      }
    }
  }

  function applyZoom() {
    const img = document.getElementById("map");
    if (img) { img.style.width = (100 * zoom) + "%"; }
  }

  // Zoom the map by `factor`, keeping the point under (x, y) on the screen where it is.
  function zoomAt(factor, x, y) {
    const view = document.getElementById("map-view");
    const next = Math.min(Math.max(zoom * factor, 1), 8);
    if (!view || next === zoom) { return; }
    const box = view.getBoundingClientRect();
    const px = x - box.left, py = y - box.top;
    const ratio = next / zoom;
    zoom = next;
    applyZoom();
    view.scrollLeft = (view.scrollLeft + px) * ratio - px;
    view.scrollTop = (view.scrollTop + py) * ratio - py;
  }

  function centre() {
    const box = document.getElementById("map-view").getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  }

  function mark() {
    following = shown === total;
    const section = document.getElementById("turn-section");
    const over = following && section ? section.dataset.over : "";  // "finished: Anna wins", shown at the end
    const now = over || (connected ? "live" : "offline: reconnecting");
    badge.textContent = following ? now : "move " + shown + " of " + total;
    badge.classList.toggle("history", !following);
    badge.classList.toggle("finished", Boolean(over));
    badge.classList.toggle("live", following && !over);
    badge.classList.toggle("offline", following && !over && !connected);
    slider.max = String(total);
    slider.value = String(shown);
    const counted = document.getElementById("at-total");  // "after move N of TOTAL", counted now
    if (counted) { counted.textContent = String(total); }
    main.dataset.at = String(shown);
    main.dataset.total = String(total);
    history.replaceState(null, "", following ? base : base + "?at=" + shown);
  }

  async function show(n) {
    wanted = n;
    if (loading) { return; }
    loading = true;
    try {
      while (wanted !== null) {
        const at = wanted;
        wanted = null;
        const response = await fetch(base + "/moment?at=" + at, { cache: "no-store" });
        if (!response.ok) { break; }
        const html = await response.text();
        const view = document.getElementById("map-view");
        const scroll = view ? [view.scrollLeft, view.scrollTop] : [0, 0];
        main.innerHTML = html;
        shown = Number(response.headers.get("X-At"));
        total = Math.max(total, Number(response.headers.get("X-Total")));
        applyZoom();
        const again = document.getElementById("map-view");
        if (again) { again.scrollLeft = scroll[0]; again.scrollTop = scroll[1]; }
        localTimes();
        mark();
      }
    } finally {
      loading = false;
    }
  }

  let timer = null;
  slider.addEventListener("input", function () {
    clearTimeout(timer);
    const n = Number(slider.value);
    timer = setTimeout(function () { show(n); }, 80);
  });
  document.getElementById("back").addEventListener("click", function () { if (shown > 0) { show(shown - 1); } });
  document.getElementById("forward").addEventListener("click", function () { if (shown < total) { show(shown + 1); } });
  document.getElementById("latest").addEventListener("click", function (e) { e.preventDefault(); show(total); });

  main.addEventListener("click", function (e) {
    const id = e.target && e.target.id;
    if (id === "zoom-in") { zoomAt(1.5, ...centre()); }
    else if (id === "zoom-out") { zoomAt(1 / 1.5, ...centre()); }
    else if (id === "zoom-fit") { zoom = 1; applyZoom(); }
  });
  main.addEventListener("wheel", function (e) {
    if (!e.ctrlKey || !e.target.closest("#map-view")) { return; }
    e.preventDefault();
    zoomAt(e.deltaY < 0 ? 1.25 : 0.8, e.clientX, e.clientY);
  }, { passive: false });

  // Two fingers on the map pinch it; one pans it (the box scrolls).
  const touches = new Map();
  let spread = 0;
  function distance() {
    const [a, b] = [...touches.values()];
    return Math.hypot(a.x - b.x, a.y - b.y);
  }
  main.addEventListener("pointerdown", function (e) {
    if (e.pointerType !== "touch" || !e.target.closest("#map-view")) { return; }
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (touches.size === 2) { spread = distance(); }
  });
  main.addEventListener("pointermove", function (e) {
    if (!touches.has(e.pointerId)) { return; }
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (touches.size !== 2 || !spread) { return; }
    const now = distance();
    const [a, b] = [...touches.values()];
    zoomAt(now / spread, (a.x + b.x) / 2, (a.y + b.y) / 2);
    spread = now;
  });
  for (const end of ["pointerup", "pointercancel", "pointerleave"]) {
    main.addEventListener(end, function (e) { touches.delete(e.pointerId); spread = 0; });
  }

  // Live updates. A stream the server refuses (too many open pages, a restart) is closed
  // for good by the browser: say so, and open another after a while, longer each time.
  let retry = 2000;
  function listen() {
    const stream = new EventSource(base + "/events");
    stream.onopen = function () { connected = true; retry = 2000; mark(); };
    stream.onmessage = function (e) {
      const data = JSON.parse(e.data);
      const was = following;
      total = data.total;
      if (was && shown !== total) { show(total); } else { mark(); }
    };
    stream.onerror = function () {
      connected = false;
      mark();
      if (stream.readyState === EventSource.CLOSED) {
        setTimeout(listen, retry);
        retry = Math.min(retry * 2, 60000);
      }
    };
  }
  listen();

  localTimes();
  mark();
}());
