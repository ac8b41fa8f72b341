// Stand-in for https://cdn.jsdelivr.net/npm/chart.js (tests/compat): a bar chart drawn on a 2D canvas.
window.Chart = class Chart {
  constructor(canvas, config) { this.canvas = canvas; this.data = config.data; this.update(); }
  update() {
    const ctx = this.canvas.getContext("2d"), { width, height } = this.canvas, values = this.data.datasets[0].data;
    const max = Math.max(...values, 1), w = width / values.length;
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = "rgb(54, 162, 235)";
    values.forEach((v, i) => ctx.fillRect(i * w + 4, height - (v / max) * height, w - 8, (v / max) * height));
  }
};
