// What went wrong, in words for the person: one sentence per error code, saying what happened and what to
// do, and the action that helps ("settings": Open Settings, "retry": Retry). The codes are Go's (the table
// in backend/services/errors.go and the codes beside it: the voice session's, the registry's, the tool
// contract's, the HTTP door's); frontend/errortext_test.go checks that every one of them is here. What Go
// said (an error chain, a path, a byte count) is never the main line: it is the details, behind an
// expander. No DOM here, so node tests it (errortext.test.mjs).

const PROVIDERS = { openai: "OpenAI", gemini: "Gemini" };

// {provider} and {title} are filled in from the context; a sentence without them stays as it is. own: the
// room itself wrote the message for this code for the person (registry.js), so it is the line.
export const TEXT = {
  // The store and the files (backend/services/errors.go)
  "mini-app-not-found": { say: "That mini-app is not there any more: it was moved or deleted. The list shows what is there now." },
  "mini-app-name-taken": { say: "Another mini-app on the shelf has this name. Rename the page, then save it again." },
  "path-outside-root": { say: "Voicebox only opens files inside the workspace and its own folders." },
  "invalid-name": { say: "That name cannot be a file name. Use letters, digits, dashes and dots." },
  "file-too-large": { say: "The file is too large for a mini-app. Pick a smaller one." },
  "folder-too-large": { say: "The app's folder is too large to copy to the shelf. Remove what it does not need, then try again." },
  "unsupported-file": { say: "The app's folder holds a kind of file Voicebox does not serve. Remove it, then try again." },
  "not-an-app-folder": { say: "That folder cannot open as an app: pick the folder that holds the app's index.html (not your home folder or a whole disk)." },
  "no-shelf": { say: "There is no shelf folder to save to. Check the data folder (Help › About)." },
  "not-html": { say: "Only .html pages open as mini-apps." },
  "document-not-found": { say: "That file is no longer open here. Open it again." },
  "file-not-found": { say: "The file is not there any more: it was moved or deleted." },
  "trash-unavailable": { say: "There is no Trash to move it to here, so nothing was deleted." },
  "restore-path-taken": { say: "Another file is where it was. Move that file away, then Undo again." },
  "restore-folder-missing": { say: "The folder it came from is gone. Make the folder again, then Undo again." },
  "not-in-trash": { say: "It is no longer in the Trash, so it cannot come back." },
  "bad-request": { say: "Voicebox could not do that: the request was not valid." },
  "internal-error": { say: "Something went wrong inside Voicebox." },
  // The voice session (backend/voice)
  "missing-key": { say: "No {provider} API key is set. Add one in Settings.", action: "settings" },
  "key-refused": { say: "{provider} refused the API key. Check it in Settings.", action: "settings" },
  "unknown-provider": { say: "Pick a voice provider in Settings.", action: "settings" },
  "session-not-running": { say: "No voice session is running. Press Start first." },
  "upstream-error": { say: "{provider} could not be reached or reported a problem. Check the internet connection, then retry.", action: "retry" },
  "setup-timeout": { say: "{provider} did not answer in time. Retry in a moment.", action: "retry" },
  "connection-lost": { say: "The voice connection was lost. Retry to connect again.", action: "retry" },
  "bad-audio": { say: "The microphone's audio could not be used. Check the microphone, or type instead." },
  // Opening and calling mini-apps (backend/registry, the room's registry, the tool contract)
  "no-room": { say: "No room is open to run the mini-app. Open the Voicebox window." },
  "launch-failed": { say: "{title} could not be opened.", own: true },
  "launch-timeout": { say: "{title} did not finish loading in time, so it was closed. Open it again, or check its script." },
  "mini-apps-disabled": { say: "Mini-apps are turned off in this window: it cannot keep them apart from the room." },
  "room-gone": { say: "The room closed before the mini-app answered. Try again." },
  "room-reloaded": { say: "The room was restarted before the mini-app answered. Try again." },
  "room-timeout": { say: "The room did not answer in time. Try again." },
  "unknown-tool": { say: "That tool is not open any more. Open its mini-app again." },
  "tool-timeout": { say: "The mini-app did not answer in time. It may be busy: try again, or reload it." },
  "output-over-budget": { say: "The mini-app answered with more than Voicebox passes on." },
  "tool-error": { say: "The mini-app's tool reported an error." },
  "cancelled": { say: "The call was stopped before the mini-app answered." },
  "invalid-tool-arguments": { say: "The arguments are not valid for this tool." },
  // The assistant writing and changing apps (backend/author, docs/authoring.md)
  "no-code-model": { say: "To write apps, the assistant needs an OpenAI or Gemini API key. Add one in Settings.", action: "settings" },
  "code-model-key-refused": { say: "{provider} refused the API key, so the app was not written. Check the key in Settings.", action: "settings" },
  "code-model-unavailable": { say: "The code model could not be reached or is busy. Try again in a moment.", action: "retry" },
  "code-model-truncated": { say: "The app was too long for the code model to finish, so nothing was written. Ask for a smaller app." },
  "code-model-blocked": { say: "The code model declined to write this. Put the request another way." },
  "code-model-failed": { say: "The code model stopped before the app was done, so nothing was written. Try again.", action: "retry" },
  "code-model-not-html": { say: "The code model did not answer with a web page. Try again with more detail." },
  "edit-bad-format": { say: "The code model's changes could not be read. Try again." },
  "edit-no-match": { say: "The code model's changes did not fit the page. Try again." },
  "edit-no-change": { say: "The code model's answer changed nothing. Say more precisely what to change." },
  "not-a-written-app": { say: "Only apps Voicebox wrote have earlier versions to go back to." },
  "no-earlier-version": { say: "This is the app's first version: there is nothing earlier to go back to." },
  "build-in-progress": { say: "That app is being written or changed right now. Wait for it to finish." },
  "unknown-build": { say: "That build is over, or it never was." },
  "cannot-edit-folder": { say: "The assistant changes single-page apps and the apps it wrote; this one is a folder of files." },
  "page-too-large": { say: "That page is too large for the assistant to change." },
  // The person's MCP servers (backend/mcpclient, docs/mcp-apps.md)
  "mcp-server-invalid": { say: "That MCP server's settings are not valid. Check its command or address in Settings.", action: "settings" },
  "mcp-server-exists": { say: "An MCP server of that name is in the list already. Pick another name." },
  "mcp-server-unknown": { say: "That MCP server is not in the list any more." },
  "mcp-server-not-ready": { say: "That MCP server is not running. Start it in Settings, then try again.", action: "settings" },
  "mcp-server-error": { say: "The MCP server reported an error." },
  "mcp-servers-file": { say: "The list of MCP servers could not be read or saved. Check the data folder." },
  "mcp-tool-not-visible": { say: "That tool of the MCP server is not meant for this caller." },
  "mcp-cross-server": { say: "A view may only use its own MCP server." },
  "mcp-tool-unusable": { say: "That MCP server's tool declares arguments Voicebox cannot check, so it cannot be called." },
  "mcp-view-invalid": { say: "The MCP server's view is not a page Voicebox can show." },
  "mcp-view-too-large": { say: "The MCP server's view is too large to open." },
  "mcp-import-not-found": { say: "No Claude Desktop configuration was found to import." },
  // The HTTP door of `voicebox serve` (backend/httpapi) and a server that does not answer
  "unauthorized": { say: "This page's session with Voicebox has ended. Open the room again from the address Voicebox printed." },
  "forbidden-host": { say: "Voicebox refused a request from this page. Open the room from the address Voicebox printed." },
  "forbidden-origin": { say: "Voicebox refused a request from this page. Open the room from the address Voicebox printed." },
  "body-too-large": { say: "That was too large to send to Voicebox." },
  "invalid-json": { say: "Voicebox could not read the request." },
  "unsupported-media-type": { say: "Voicebox could not read the request." },
  "method-not-allowed": { say: "Voicebox could not do that: the request was not valid." },
  "unsupported": { say: "This room cannot do that here." },
  "unreachable": { say: "Voicebox did not answer. Check that it is still running, then retry.", action: "retry" },
  // The room's own clipboard (clipboard.js)
  "nothing-to-copy": { say: "There is nothing to copy yet." },
  "clipboard-unavailable": { say: "The clipboard did not take the text. Select it and copy it by hand." },
};

// codeOf is an error's code: Go's, else "unreachable" for a request that never got an answer (fetch's
// TypeError, an HTTP status without a body), else "internal-error".
export function codeOf(err) {
  const code = err && typeof err.code === "string" ? err.code : "";
  if (code && !/^http-\d+$/.test(code)) return code;
  if (code || (err && err.name === "TypeError")) return "unreachable";
  return "internal-error";
}

function fill(s, ctx) {
  return s.replace(/\{(provider|title)\}/g, (_, k) => {
    if (k === "provider") return PROVIDERS[ctx.provider] || ctx.provider || "The voice provider";
    return ctx.title || "The mini-app";
  });
}

// describe turns an error into { code, line, details, action }: line is "<doing>. <sentence>" (doing says
// what did not happen: "Not saved"), details what Go said, when it says more than the line.
export function describe(err, ctx = {}) {
  const code = codeOf(err);
  const entry = TEXT[code] || TEXT["internal-error"];
  const raw = err && typeof err.message === "string" ? err.message.trim() : String(err || "");
  const sentence = entry.own && raw ? raw : fill(entry.say, ctx);
  const line = ctx.doing ? `${ctx.doing}. ${sentence}` : sentence;
  const details = raw && raw !== sentence && raw !== line ? `${raw}\n(${code})` : "";
  return { code, line, details, action: entry.action || "" };
}
