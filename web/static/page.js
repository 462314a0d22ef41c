// The game's page: moments in the reader's time zone, the turn clock's countdown each second, and the page kept
// current: on each new version (server-sent events) the page is fetched again and its <main> swapped in, with
// the same query (the ledger's filters, the story's turn). No framework; without script the page reads in UTC.
(function () {
  "use strict";
  var when = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short"
  });
  var timer = null;

  function localTimes(root) {
    var times = root.querySelectorAll("time[datetime]");
    for (var i = 0; i < times.length; i++) {
      var t = times[i];
      if (t.id === "countdown") continue;
      var moment = new Date(t.getAttribute("datetime"));
      if (isNaN(moment)) continue;
      t.title = t.textContent;
      t.textContent = when.format(moment);
    }
  }

  function left(ms) {
    if (ms <= 0) return "due now";
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600);
    var m = Math.floor(s % 3600 / 60), sec = s % 60;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return (d ? d + " d " : "") + pad(h) + ":" + pad(m) + ":" + pad(sec);
  }

  function countdown() {
    if (timer) clearInterval(timer);
    var el = document.getElementById("countdown");
    if (!el) return;
    var due = new Date(el.getAttribute("datetime"));
    if (isNaN(due)) return;
    el.title = when.format(due);
    var tick = function () { el.textContent = left(due - Date.now()); };
    tick();
    timer = setInterval(tick, 1000);
  }

  function setUp(root) {
    localTimes(root);
    countdown();
  }

  // `wanted`: the version the live updates told of. The server makes a game's page at most every few seconds, so
  // the page fetched may be the one before: then it is asked for again a little later (a few times at most).
  function refresh(wanted, tries) {
    fetch(location.href, { cache: "no-store", credentials: "same-origin" }).then(function (response) {
      if (response.status === 404) { gone(); return null; }
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (!html) return;
      var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
      var old = document.querySelector("main");
      if (!fresh || !old) return;
      var y = window.scrollY;
      old.replaceWith(document.adoptNode(fresh));
      setUp(fresh);
      window.scrollTo(0, y);
      if (wanted && fresh.dataset.version !== wanted && (tries || 0) < 3) {
        setTimeout(function () { refresh(wanted, (tries || 0) + 1); }, 2500);
      }
      var title = new DOMParser().parseFromString(html, "text/html").title;
      if (title) document.title = title;
    }).catch(function () { /* the next version tries again */ });
  }

  var source = null;
  function gone() {
    if (source) source.close();
    var main = document.querySelector("main");
    if (main) main.classList.add("stale");
  }

  function listen() {
    var main = document.querySelector("main");
    if (!main || !window.EventSource || !main.dataset.events) return;
    source = new EventSource(new URL(main.dataset.events, location.href).href);
    source.addEventListener("error", function () {
      // a stream the server refused (a rotated link, too many open pages) is not retried by the browser: ask for
      // the page itself — gone, the page is marked stale; there, listen again in a while
      if (source.readyState !== EventSource.CLOSED) return;
      fetch(location.href, { method: "HEAD", cache: "no-store" }).then(function (response) {
        if (response.status === 404) gone();
        else setTimeout(listen, 30000);
      }).catch(function () { setTimeout(listen, 30000); });
    });
    source.addEventListener("version", function (e) {
      var now = document.querySelector("main");
      if (now && e.data && e.data !== now.dataset.version) {
        now.dataset.version = e.data;
        refresh(e.data, 0);
      }
    });
  }

  function start() {
    setUp(document);
    listen();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
