// Stand-in for https://esm.sh/canvas-confetti@1 (tests/compat): an ES module with a default export.
export default function confetti() { return "confetti!"; }
