// Stand-in for https://esm.run/canvas-confetti@1 (tests/compat): an ES module with a default export. The real
// esm.run redirects to cdn.jsdelivr.net/npm/canvas-confetti@1/+esm; the stand-in answers at once.
export default function confetti() { return "confetti!"; }
