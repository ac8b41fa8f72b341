// Package author is how the assistant writes and edits mini-apps (docs/authoring.md).
//
// Three parts are pure and stand alone:
//
//   - extract.go: a code model's answer becomes one HTML document or a clear refusal (ExtractHTML,
//     CheckPage): bare, or in exactly one fenced block; never a broken app.
//   - edits.go: the edit format the model is taught (EditFormat, Aider-style SEARCH/REPLACE blocks), its
//     parser (ParseEdit) and an all-or-none application (ApplyEdit) whose misses carry the page's nearby
//     lines back to the model (MatchFailure).
//   - versions.go: the Workshop, where written apps live (<data>/sandboxes/<slug>/index.html, a sandbox
//     home the store lists as a page) and their versions, kept outside the app's folder
//     (<data>/versions/<slug>/).
//
// Refusals meant for the model are a *Failure with one of the Code constants; the lead's table of codes
// (backend/toolcontract) holds them too.
package author
