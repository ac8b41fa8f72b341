package author

import (
	_ "embed"
	"fmt"
	"strings"
)

// systemPrompt is the code model's standing instructions (prompt.md, shipped in the binary): what makes an
// app work in Voicebox. {{CDN_HOSTS}} becomes the hosts Settings allow.
//
//go:embed prompt.md
var systemPrompt string

// System is the system prompt for a build: the standing instructions with the CDN hosts of Settings, and
// the edit format (edits.go), which edits and repairs answer in.
func System(cdnHosts []string) string {
	hosts := "none"
	if len(cdnHosts) > 0 {
		hosts = strings.Join(cdnHosts, ", ")
	}
	return strings.ReplaceAll(systemPrompt, "{{CDN_HOSTS}}", hosts) + "\n# Changing a page\n\n" + EditFormat
}

// createPrompt asks for a new app.
func createPrompt(description, name string) string {
	var b strings.Builder
	b.WriteString("Write this mini-app:\n\n")
	b.WriteString(description)
	if name != "" {
		fmt.Fprintf(&b, "\n\nIts title is %q.", name)
	}
	b.WriteString("\n\nAnswer with the whole HTML document.")
	return b.String()
}

// editPrompt asks for a change of page.
func editPrompt(page, change string) string {
	return "Here is the mini-app as it is now:\n\n```html\n" + page + "\n```\n\nChange it as follows:\n\n" + change +
		"\n\nAnswer with search/replace blocks (the edit format), or with the whole new document if most of it changes."
}

// repairPrompt sends a version's problems back: what the host saw when it opened the app. page is the
// version the problems are about when the model did not write it whole (an edit), so it can quote it.
func repairPrompt(problems []string, page string) string {
	var b strings.Builder
	b.WriteString("Voicebox opened that version and it does not work yet:\n\n")
	for _, p := range problems {
		b.WriteString("- ")
		b.WriteString(p)
		b.WriteString("\n")
	}
	if page != "" {
		b.WriteString("\nThe page as it is now:\n\n```html\n")
		b.WriteString(page)
		b.WriteString("\n```\n")
	}
	b.WriteString("\nFix every problem. Answer with search/replace blocks against the page as it is now, or with the whole corrected document.")
	return b.String()
}

// retryPrompt sends back an answer that could not be used (not a document, blocks that do not apply, an edit
// that changes nothing), with what was wrong.
func retryPrompt(why string) string {
	return "That answer could not be used: " + why + "\n\nAnswer again, following the format exactly."
}

// rewritePrompt gives up on blocks: the whole document, after blocks failed to match twice.
func rewritePrompt(page, change string) string {
	return "The search/replace blocks did not match the page. Here it is once more:\n\n```html\n" + page +
		"\n```\n\nApply this change and answer with the whole new HTML document, nothing else:\n\n" + change
}
