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
  let zoom = 1;
  let wanted = null;
  let loading = false;

  function localTimes() {
    for (const t of main.querySelectorAll("time[datetime]")) {
      const d = new Date(t.getAttribute("datetime"));
      if (!isNaN(d)) { t.textContent = d.toLocaleString(); }
    }
  }

  function applyZoom() {
    const img = document.getElementById("map");
    if (img) { img.style.width = (100 * zoom) + "%"; }
  }

  function mark() {
    following = shown === total;
    badge.textContent = following ? "live" : "move " + shown + " of " + total;
    badge.classList.toggle("history", !following);
    slider.max = String(total);
    slider.value = String(shown);
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
    if (id === "zoom-in") { zoom = Math.min(zoom * 1.5, 8); }
    else if (id === "zoom-out") { zoom = Math.max(zoom / 1.5, 1); }
    else if (id === "zoom-fit") { zoom = 1; }
    else { return; }
    applyZoom();
  });
  main.addEventListener("wheel", function (e) {
    if (!e.ctrlKey || !e.target.closest("#map-view")) { return; }
    e.preventDefault();
    zoom = Math.min(Math.max(zoom * (e.deltaY < 0 ? 1.25 : 0.8), 1), 8);
    applyZoom();
  }, { passive: false });

  const stream = new EventSource(base + "/events");
  stream.onmessage = function (e) {
    const data = JSON.parse(e.data);
    const was = following;
    total = data.total;
    if (was && shown !== total) { show(total); } else { mark(); }
  };

  localTimes();
  mark();
}());
