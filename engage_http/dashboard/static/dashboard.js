// Live regions of the dashboard: an element with data-live is refreshed in place every few seconds
// with the region of the page its value names (the page itself when empty), asked for with the
// X-Engage-Fragment header, so new conversations and messages appear without a reload. Nothing runs
// while the tab is hidden; errors back off.
(function () {
  "use strict";
  var region = document.querySelector("[data-live]");
  if (!region) return;
  var source = region.getAttribute("data-live") || location.href;
  var every = 3000, delay = every, timer = null, last = null;

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, delay);
  }

  function refresh() {
    if (document.visibilityState === "hidden") return schedule();
    fetch(source, { headers: { "X-Engage-Fragment": "1" }, credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (response.redirected || response.status === 401 || response.status === 403) {
          location.reload(); // the session ended: show the sign-in page
          return null;
        }
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        if (html !== null && html !== last) {
          last = html;
          var stick = region.scrollHeight - region.scrollTop - region.clientHeight < 40;
          region.innerHTML = html;
          if (stick) region.scrollTop = region.scrollHeight;
        }
        delay = every;
        schedule();
      })
      .catch(function () {
        delay = Math.min(delay * 2, 60000);
        schedule();
      });
  }

  // A region with data-stream also listens to that server-sent event stream (the web chat's live
  // channel): any event refreshes it at once, and the regular look becomes a slow safety net.
  var stream = region.getAttribute("data-stream");
  if (stream && window.EventSource) {
    var events = new EventSource(stream);
    var now = function () { delay = every; refresh(); };
    events.addEventListener("message", now);
    events.addEventListener("session", now);
    events.addEventListener("changed", now);
    events.onopen = function () { every = 15000; };
    events.onerror = function () { every = 3000; };
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { delay = every; refresh(); }
  });
  schedule();
})();
