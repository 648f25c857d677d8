/*
 * engage web chat widget: one <script> tag, no framework, no build step.
 *
 *   <script src="https://chat.example.com/widget.js" data-key="wk_..." async></script>
 *
 * It draws a launcher and a chat window inside a shadow root (the page's styles do not reach it),
 * keeps the visitor's session in localStorage (across reloads and tabs), receives messages live over
 * server-sent events read with fetch (so the session token travels in a header, never in a URL) and
 * resumes from the last message it saw after any disconnection.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.dataset || !script.dataset.key) return;
  var KEY = script.dataset.key;
  var BASE = new URL(script.src, document.baseURI).origin + "/widget/" + encodeURIComponent(KEY);
  var STORE = "engage-webchat:" + KEY;

  var WORDS = {
    en: {
      open: "Open chat", close: "Close chat", title: "Chat with us", input: "Type your message",
      send: "Send", human: "Talk to a person", end: "End chat", confirm: "End this chat?",
      yes: "Yes, end it", no: "Keep chatting", ended: "This chat has ended.", fresh: "Start a new chat",
      details: "Your details (optional)", name: "Name", email: "E-mail", phone: "Phone", save: "Save",
      you: "You", bot: "Assistant", agent: "Agent", failed: "Not sent. Please try again."
    },
    ar: {
      open: "افتح المحادثة", close: "أغلق المحادثة", title: "تحدث معنا", input: "اكتب رسالتك",
      send: "إرسال", human: "تحدث إلى شخص", end: "إنهاء المحادثة", confirm: "هل تريد إنهاء هذه المحادثة؟",
      yes: "نعم، أنهِها", no: "متابعة المحادثة", ended: "انتهت هذه المحادثة.", fresh: "ابدأ محادثة جديدة",
      details: "بياناتك (اختياري)", name: "الاسم", email: "البريد الإلكتروني", phone: "الهاتف", save: "حفظ",
      you: "أنت", bot: "المساعد", agent: "موظف", failed: "لم تُرسل. حاول مرة أخرى."
    }
  };

  var state = { token: null, lastSeq: 0, seen: {}, status: null, handledBy: null, stream: null };
  var t = WORDS.en;
  var ui = {};

  function load() {
    try {
      var saved = JSON.parse(localStorage.getItem(STORE) || "null");
      if (saved && saved.token) { state.token = saved.token; }
    } catch (e) { /* storage disabled: the session lasts as long as the page */ }
  }
  function save() {
    try {
      if (state.token) localStorage.setItem(STORE, JSON.stringify({ token: state.token }));
      else localStorage.removeItem(STORE);
    } catch (e) { /* ignore */ }
  }

  function call(method, path, body) {
    var headers = { "Content-Type": "application/json" };
    if (state.token) headers["X-Widget-Session"] = state.token;
    return fetch(BASE + path, {
      method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), mode: "cors"
    }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) { var error = new Error(json.message || response.statusText); error.status = response.status; throw error; }
        return json.data;
      });
    });
  }

  // -- drawing ------------------------------------------------------------------------------------

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var name in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, name)) node.setAttribute(name, attrs[name]); }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function css(color, textColor) {
    return [
      ":host{all:initial}",
      "*{box-sizing:border-box;font-family:system-ui,-apple-system,'Segoe UI',Tahoma,Arial,sans-serif;font-size:15px}",
      ".launcher{position:fixed;bottom:20px;inset-inline-end:20px;width:56px;height:56px;border-radius:50%;border:0;",
      "background:" + color + ";color:" + textColor + ";cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25);z-index:2147483000}",
      ".launcher svg{width:28px;height:28px;fill:currentColor}",
      ".window{position:fixed;bottom:90px;inset-inline-end:20px;width:min(370px,calc(100vw - 40px));height:min(560px,calc(100vh - 120px));",
      "display:flex;flex-direction:column;background:#fff;color:#1a1a1a;border-radius:12px;overflow:hidden;",
      "box-shadow:0 8px 30px rgba(0,0,0,.3);z-index:2147483000}",
      ".window[hidden]{display:none}",
      "header{background:" + color + ";color:" + textColor + ";padding:12px 14px;display:flex;align-items:center;gap:8px}",
      "header h2{flex:1;margin:0;font-size:16px;font-weight:600}",
      "header button{background:transparent;color:inherit;border:1px solid currentColor;border-radius:6px;padding:4px 8px;cursor:pointer}",
      ".log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px;background:#f6f7f9}",
      ".msg{max-width:85%;padding:8px 11px;border-radius:10px;white-space:pre-wrap;word-wrap:break-word;line-height:1.4}",
      ".msg .who{display:block;font-size:12px;font-weight:600;margin-bottom:2px}",
      ".msg img.media{display:block;max-width:100%;margin-top:6px;border-radius:6px}",
      ".visitor{align-self:flex-end;background:" + color + ";color:" + textColor + "}",
      ".bot,.agent{align-self:flex-start;background:#fff;color:#1a1a1a;border:1px solid #d0d4da}",
      ".agent{border-color:#4a4a4a}",
      ".system{align-self:center;background:transparent;color:#4a4a4a;font-style:italic;font-size:13px;text-align:center}",
      ".bar{display:flex;gap:6px;padding:8px 10px;border-top:1px solid #d0d4da;flex-wrap:wrap}",
      ".bar button,.confirm button,.details button{border:1px solid #4a4a4a;background:#fff;color:#1a1a1a;border-radius:6px;padding:5px 9px;cursor:pointer}",
      "form.compose{display:flex;gap:6px;padding:10px;border-top:1px solid #d0d4da}",
      "form.compose textarea{flex:1;resize:none;height:42px;border:1px solid #6b6b6b;border-radius:8px;padding:8px;color:#1a1a1a}",
      "form.compose button{background:" + color + ";color:" + textColor + ";border:0;border-radius:8px;padding:0 14px;cursor:pointer}",
      ".confirm{padding:10px;border-top:1px solid #d0d4da;background:#fff8e5;display:flex;gap:6px;align-items:center;flex-wrap:wrap}",
      ".confirm[hidden],.details form[hidden],.ended[hidden]{display:none}",
      ".ended{padding:10px;text-align:center;border-top:1px solid #d0d4da}",
      ".details{padding:0 10px 8px}",
      ".details summary{cursor:pointer;color:#1a1a1a;padding:6px 0}",
      ".details label{display:block;font-size:13px;margin:4px 0 2px;color:#1a1a1a}",
      ".details input{width:100%;border:1px solid #6b6b6b;border-radius:6px;padding:6px;color:#1a1a1a}",
      ":focus-visible{outline:3px solid #0b57d0;outline-offset:2px}",
      ".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}"
    ].join("");
  }

  var BUBBLE = '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z"/></svg>';

  function draw(config) {
    t = WORDS[config.language] || WORDS.en;
    var host = el("div", { id: "engage-webchat" });
    document.body.appendChild(host);
    var root = host.attachShadow({ mode: "open" });
    var style = el("style"); style.textContent = css(config.color, config.text_color); root.appendChild(style);
    var wrap = el("div", { dir: config.direction, lang: config.language });
    root.appendChild(wrap);

    ui.launcher = el("button", { type: "button", "class": "launcher", "aria-label": t.open, "aria-expanded": "false", "aria-controls": "engage-chat-window" });
    ui.launcher.innerHTML = BUBBLE;
    wrap.appendChild(ui.launcher);

    ui.window = el("section", { "class": "window", id: "engage-chat-window", role: "dialog", "aria-label": t.title, hidden: "" });
    var header = el("header");
    header.appendChild(el("h2", {}, t.title));
    ui.closeButton = el("button", { type: "button", "aria-label": t.close }, "×");
    header.appendChild(ui.closeButton);
    ui.window.appendChild(header);

    ui.log = el("div", { "class": "log", role: "log", "aria-live": "polite", "aria-label": t.title, tabindex: "0" });
    ui.window.appendChild(ui.log);

    ui.details = el("details", { "class": "details" });
    ui.details.appendChild(el("summary", {}, t.details));
    ui.detailsForm = el("form", {});
    [["name", "text", "name"], ["email", "email", "email"], ["phone", "tel", "tel"]].forEach(function (f) {
      var id = "engage-visitor-" + f[0];
      ui.detailsForm.appendChild(el("label", { "for": id }, t[f[0]]));
      ui.detailsForm.appendChild(el("input", { id: id, name: f[0], type: f[1], autocomplete: f[2] }));
    });
    ui.detailsForm.appendChild(el("button", { type: "submit" }, t.save));
    ui.details.appendChild(ui.detailsForm);
    ui.window.appendChild(ui.details);

    ui.bar = el("div", { "class": "bar" });
    ui.humanButton = el("button", { type: "button" }, t.human);
    ui.endButton = el("button", { type: "button" }, t.end);
    ui.bar.appendChild(ui.humanButton); ui.bar.appendChild(ui.endButton);
    ui.window.appendChild(ui.bar);

    ui.confirm = el("div", { "class": "confirm", role: "alertdialog", "aria-label": t.confirm, hidden: "" });
    ui.confirm.appendChild(el("span", {}, t.confirm));
    ui.confirmYes = el("button", { type: "button" }, t.yes);
    ui.confirmNo = el("button", { type: "button" }, t.no);
    ui.confirm.appendChild(ui.confirmYes); ui.confirm.appendChild(ui.confirmNo);
    ui.window.appendChild(ui.confirm);

    ui.ended = el("div", { "class": "ended", hidden: "" });
    ui.ended.appendChild(el("p", {}, t.ended));
    ui.freshButton = el("button", { type: "button" }, t.fresh);
    ui.ended.appendChild(ui.freshButton);
    ui.window.appendChild(ui.ended);

    ui.form = el("form", { "class": "compose" });
    ui.form.appendChild(el("label", { "for": "engage-message", "class": "sr" }, t.input));
    ui.input = el("textarea", { id: "engage-message", name: "message", placeholder: t.input, maxlength: "4096", rows: "1" });
    ui.form.appendChild(ui.input);
    ui.form.appendChild(el("button", { type: "submit" }, t.send));
    ui.window.appendChild(ui.form);
    wrap.appendChild(ui.window);

    ui.greeting = config.greeting;
    wire();
  }

  function who(sender) { return sender === "visitor" ? t.you : sender === "agent" ? t.agent : sender === "bot" ? t.bot : ""; }

  function show(message) {
    if (state.seen[message.seq]) return;
    state.seen[message.seq] = true;
    state.lastSeq = Math.max(state.lastSeq, message.seq);
    var node = el("div", { "class": "msg " + message.sender_type, "data-seq": String(message.seq), "data-sender": message.sender_type });
    var label = who(message.sender_type);
    if (label) node.appendChild(el("span", { "class": "who" }, label));
    node.appendChild(document.createTextNode(message.message_text));
    if (message.media_url) node.appendChild(el("img", { "class": "media", src: message.media_url, alt: "", loading: "lazy" }));
    ui.log.appendChild(node);
    ui.log.scrollTop = ui.log.scrollHeight;
  }

  function clearLog() {
    ui.log.textContent = "";
    state.seen = {}; state.lastSeq = 0;
  }

  function apply(session) {
    state.status = session.status; state.handledBy = session.handled_by;
    var ended = session.status === "ended";
    ui.window.setAttribute("data-status", session.status);
    ui.window.setAttribute("data-handled-by", session.handled_by);
    ui.ended.hidden = !ended; ui.form.hidden = ended; ui.bar.hidden = ended; ui.confirm.hidden = true;
    ui.humanButton.disabled = session.handled_by !== "ai";
    if (ended) { stopStream(); state.token = null; save(); }
  }

  // -- the live stream ------------------------------------------------------------------------------

  function stopStream() { if (state.stream) { state.stream.abort(); state.stream = null; } }

  function listen() {
    stopStream();
    if (!state.token) return;
    var controller = new AbortController();
    state.stream = controller;
    var token = state.token;
    fetch(BASE + "/session/stream", {
      headers: { "X-Widget-Session": token, "Last-Event-ID": String(state.lastSeq) }, signal: controller.signal, mode: "cors"
    }).then(function (response) {
      if (!response.ok || !response.body) throw new Error("stream " + response.status);
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return;
          buffer += decoder.decode(chunk.value, { stream: true });
          var parts = buffer.split("\n\n");
          buffer = parts.pop();
          parts.forEach(handleEvent);
          return pump();
        });
      }
      return pump();
    }).then(function () {
      if (state.stream === controller && state.token === token) setTimeout(listen, 500);
    }, function () {
      if (state.stream === controller && state.token === token) setTimeout(listen, 2000);
    });
  }

  function handleEvent(block) {
    var kind = "message", data = "";
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event: ") === 0) kind = line.slice(7);
      else if (line.indexOf("data: ") === 0) data += line.slice(6);
    });
    if (!data) return;
    var value = JSON.parse(data);
    if (kind === "message") show(value);
    else if (kind === "session") apply(value);
  }

  // -- the session ----------------------------------------------------------------------------------

  function resume() {
    if (!state.token) { showGreeting(); return Promise.resolve(); }
    return call("GET", "/session").then(function (data) {
      clearLog();
      data.messages.forEach(show);
      apply(data.session);
      if (data.session.status === "active") listen();
    }, function (error) {
      if (error.status === 404) { state.token = null; save(); showGreeting(); }
    });
  }

  function showGreeting() {
    clearLog();
    if (ui.greeting) show({ seq: 0, sender_type: "bot", message_text: ui.greeting });
    state.seen = {}; state.lastSeq = 0;
    ui.ended.hidden = true; ui.form.hidden = false; ui.bar.hidden = false;
    ui.humanButton.disabled = false;
    ui.window.setAttribute("data-status", "new");
  }

  function start() {
    if (state.token) return Promise.resolve();
    var body = { page_url: location.href, referrer: document.referrer || null };
    var details = readDetails();
    for (var k in details) { if (details[k]) body[k] = details[k]; }
    return call("POST", "/sessions", body).then(function (data) {
      state.token = data.token; save();
      clearLog();
      data.messages.forEach(show);
      apply(data.session);
      listen();
    });
  }

  function readDetails() {
    var form = ui.detailsForm;
    return { visitor_name: form.elements.name.value.trim(), visitor_email: form.elements.email.value.trim(), visitor_phone: form.elements.phone.value.trim() };
  }

  function send(text) {
    return start().then(function () { return call("POST", "/session/messages", { message: text }); })
      .then(show, function () { show({ seq: -Date.now(), sender_type: "system", message_text: t.failed }); });
  }

  // -- events ---------------------------------------------------------------------------------------

  function setOpen(open) {
    ui.window.hidden = !open;
    ui.launcher.setAttribute("aria-expanded", open ? "true" : "false");
    ui.launcher.setAttribute("aria-label", open ? t.close : t.open);
    if (open) ui.input.focus(); else ui.launcher.focus();
  }

  function wire() {
    ui.launcher.addEventListener("click", function () { setOpen(ui.window.hidden); });
    ui.closeButton.addEventListener("click", function () { setOpen(false); });
    ui.window.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { if (!ui.confirm.hidden) { ui.confirm.hidden = true; ui.endButton.focus(); } else setOpen(false); }
    });
    ui.form.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = ui.input.value.trim();
      if (!text) return;
      ui.input.value = "";
      send(text);
    });
    ui.input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); ui.form.requestSubmit(); }
    });
    ui.humanButton.addEventListener("click", function () {
      start().then(function () { return call("POST", "/session/human"); }).then(apply);
    });
    ui.endButton.addEventListener("click", function () {
      if (!state.token) return;
      ui.confirm.hidden = false; ui.confirmNo.focus();
    });
    ui.confirmNo.addEventListener("click", function () { ui.confirm.hidden = true; ui.endButton.focus(); });
    ui.confirmYes.addEventListener("click", function () {
      call("POST", "/session/end").then(function (session) {
        return call("GET", "/session?after=" + state.lastSeq).then(function (data) { data.messages.forEach(show); return session; });
      }).then(apply, function () { /* the stream shows the end */ });
    });
    ui.freshButton.addEventListener("click", function () { state.token = null; save(); showGreeting(); ui.input.focus(); });
    ui.detailsForm.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!state.token) { ui.details.open = false; return; }
      call("PUT", "/session/visitor", readDetails()).then(function () { ui.details.open = false; });
    });
    // Another tab started or ended the session: follow it.
    window.addEventListener("storage", function (event) {
      if (event.key !== STORE) return;
      var before = state.token;
      load();
      if (!event.newValue) state.token = null;
      if (state.token !== before) { stopStream(); resume(); }
    });
  }

  function boot() {
    load();
    fetch(BASE + "/config", { mode: "cors" }).then(function (r) { return r.json(); }).then(function (json) {
      if (!json.success) return;
      draw(json.data);
      resume();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
