// Stand-in for https://unpkg.com/@babel/standalone (tests/compat): like the real one, it runs each
// <script type="text/babel"> once the document is parsed, through eval (here the source needs no transform).
window.Babel = { transform: (code) => ({ code }) };
document.addEventListener("DOMContentLoaded", () => {
  for (const s of document.querySelectorAll('script[type="text/babel"]')) new Function(window.Babel.transform(s.textContent).code)();
});
