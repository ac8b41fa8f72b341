// The sample app of the first run: a scoreboard with three tools, shipped inside the room and opened from
// here as a page read in the browser would be (SandboxService.Prepare {html, name}). Nothing is written
// anywhere until the person saves it to the shelf, so a person's workspace is never touched.
export const SAMPLE_NAME = "voicebox-sample.html";

export const SAMPLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sample Scoreboard</title>
<style>
  body { font: 16px system-ui, sans-serif; margin: 0; padding: 20px; background: #f6f7fb; color: #1d2230; }
  h1 { font-size: 18px; margin: 0 0 12px; }
  .board { display: flex; gap: 16px; }
  .team { flex: 1; background: #fff; border-radius: 12px; padding: 16px; text-align: center; box-shadow: 0 2px 8px #0001; }
  .team b { display: block; font-size: 44px; margin-top: 6px; }
  p { color: #5b6375; font-size: 13px; line-height: 1.5; }
  code { background: #e9ecf5; padding: 1px 4px; border-radius: 4px; }
</style>
</head>
<body>
<h1>Sample Scoreboard</h1>
<div class="board">
  <div class="team">Home<b id="home">0</b></div>
  <div class="team">Away<b id="away">0</b></div>
</div>
<p>This page registers three tools: <code>set_score</code>, <code>reset</code> and <code>get_scores</code>.
Call them from the Tool Console, or start a Live Session and say “add three points to the home team”.
Save it to the shelf to keep it.</p>
<script>
const score = { home: 0, away: 0 };
const show = () => { for (const t of ["home", "away"]) document.getElementById(t).textContent = score[t]; };
webMcp.registerTool({
  name: "set_score",
  description: "Add points to a team (negative points take them away)",
  parameters: { type: "object", properties: {
    team: { type: "string", enum: ["home", "away"], description: "Which team" },
    points: { type: "integer", minimum: -20, maximum: 20, description: "Points to add" },
  }, required: ["team", "points"] },
  execute: ({ team, points }) => { score[team] += points; show(); return { team, score: score[team] }; },
});
webMcp.registerTool({
  name: "reset", description: "Set both scores to zero", parameters: { type: "object" },
  execute: () => { score.home = score.away = 0; show(); return score; },
});
webMcp.registerTool({
  name: "get_scores", description: "Read both scores", parameters: { type: "object" },
  execute: () => ({ ...score }),
});
webMcp.ready();
</script>
</body>
</html>
`;
