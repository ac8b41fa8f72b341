//go:build linux && cgo

// Downloads by navigation (docs/webmcp.md, "What the room does for a page"; docs/sandbox.md, the guard). A
// mini-app that saves a file with `location = URL.createObjectURL(blob)` (or location.assign/replace)
// navigates its own frame to a blob: URL: `location` cannot be wrapped in the page and the Navigation API is
// off in an opaque-origin document, so nothing in the page can catch it. In the desktop the bridge's
// frame-src lets that navigation reach the guard (sandbox.Options.BlobNavigationDownloads: CSP is checked
// before the policy decision), and here every navigation to a blob: URL is ignored, so no blob: document
// ever loads and the app's document stays. When it was the app's own kind of URL (an opaque origin's,
// "blob:null/…") on the person's gesture, the UI process downloads that one URL (the sandboxed frame,
// without allow-downloads, could not), into a private temporary folder, bounded; the bytes go to Go
// (Options.OnDownload: the same Save dialog as a download link). Runs on the GTK main thread, like guard.c.

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <glib/gstdio.h>
#include <string.h>
#include "guard.h"
#include "_cgo_export.h"

static guint64 max_bytes;         // Options.MaxDownloadBytes
static GHashTable *decided;       // blob: URI → tries so far: the downloads this file started, not begun yet
static WebKitWebView *view;       // the guarded web view
// The page registers a blob with the network process as it makes it, and the download asks the network
// process from the UI process: a large blob made just before the navigation may not be there yet (measured:
// 64 MiB, "WebKitBlobResource 1", not found). So a blob not found is asked for again, a few times.
enum { MAX_TRIES = 8, RETRY_MS = 250 };
static const char app_blob[] = "blob:null/"; // a blob: URL made by an opaque origin (every mini-app frame)

static void refuse(const char *code, const char *message)
{
    voiceboxGuardDownload(NULL, NULL, (char *)code, (char *)message);
}

static void start(const char *uri, guint tries)
{
    g_hash_table_insert(decided, g_strdup(uri), GUINT_TO_POINTER(tries));
    webkit_web_view_download_uri(view, uri);
}

static gboolean retry(gpointer data)
{
    char *uri = data;
    guint tries = GPOINTER_TO_UINT(g_hash_table_lookup(decided, uri));
    g_hash_table_remove(decided, uri);
    if (view != NULL)
        start(uri, tries);
    return G_SOURCE_REMOVE;
}

int vbg_is_blob(const char *uri)
{
    return uri != NULL && g_ascii_strncasecmp(uri, "blob:", 5) == 0;
}

void vbg_decide_blob_navigation(WebKitPolicyDecision *d, WebKitNavigationAction *a, const char *uri)
{
    webkit_policy_decision_ignore(d);
    if (g_ascii_strncasecmp(uri, app_blob, sizeof app_blob - 1) != 0) {
        voiceboxGuardLog("refused a navigation to a blob: URL of another origin");
        refuse("download-refused", "a download must be the app's own bytes (a blob: URL the app made)");
    } else if (!webkit_navigation_action_is_user_gesture(a)) {
        voiceboxGuardLog("refused a download by navigation without the person's gesture");
        refuse("needs-gesture", "a download needs the person's click in the app");
    } else {
        voiceboxGuardLog("a frame navigated to its blob: URL on the person's gesture: a download");
        start(uri, 1);
    }
}

// A download's own state: its temporary file and whether it already ended (refused, failed or finished).
typedef struct {
    char *uri, *dir, *path, *name;
    guint tries;
    gboolean ended;
} blob_download;

static void forget(gpointer data)
{
    blob_download *b = data;
    if (b->path != NULL)
        g_unlink(b->path); // not handed to Go (on_finished): not to be kept
    if (b->dir != NULL)
        g_rmdir(b->dir);
    g_free(b->uri);
    g_free(b->dir);
    g_free(b->path);
    g_free(b->name);
    g_free(b);
}

static gboolean on_decide_destination(WebKitDownload *dl, const char *suggested, gpointer data)
{
    blob_download *b = data;
    GError *err = NULL;
    b->dir = g_dir_make_tmp("voicebox-download-XXXXXX", &err); // 0700: the person's only
    if (b->dir == NULL) {
        voiceboxGuardLog(err->message);
        g_clear_error(&err);
        b->ended = TRUE;
        refuse("download-refused", "no temporary folder for the download");
        webkit_download_cancel(dl);
        return TRUE;
    }
    b->name = g_strdup(suggested != NULL ? suggested : "");
    b->path = g_build_filename(b->dir, "bytes", NULL);
    char *dest = g_filename_to_uri(b->path, NULL, NULL);
    webkit_download_set_destination(dl, dest);
    g_free(dest);
    return TRUE;
}

static void on_received(WebKitDownload *dl, guint64 length, gpointer data)
{
    blob_download *b = data;
    guint64 got = webkit_download_get_received_data_length(dl);
    if (b->ended || got <= max_bytes)
        return;
    b->ended = TRUE;
    char *why = g_strdup_printf("the download is over the limit of %" G_GUINT64_FORMAT " bytes", max_bytes);
    refuse("download-too-large", why);
    g_free(why);
    webkit_download_cancel(dl);
}

static void on_failed(WebKitDownload *dl, GError *err, gpointer data)
{
    blob_download *b = data;
    if (b->ended)
        return;
    b->ended = TRUE;
    if (g_strcmp0(g_quark_to_string(err->domain), "WebKitBlobResource") == 0 && err->code == 1 && b->tries < MAX_TRIES) {
        g_hash_table_insert(decided, g_strdup(b->uri), GUINT_TO_POINTER(b->tries + 1)); // held for retry
        g_timeout_add_full(G_PRIORITY_DEFAULT, RETRY_MS, retry, g_strdup(b->uri), g_free);
        return;
    }
    char *why = g_strdup_printf("a download by navigation failed: %s (%s %d, %" G_GUINT64_FORMAT " bytes received)", err->message,
                                g_quark_to_string(err->domain), err->code, webkit_download_get_received_data_length(dl));
    voiceboxGuardLog(why);
    g_free(why);
    refuse("download-refused", "the app's blob: URL could not be read");
}

static void on_finished(WebKitDownload *dl, gpointer data)
{
    blob_download *b = data;
    if (!b->ended && b->path != NULL) {
        b->ended = TRUE;
        voiceboxGuardDownload(b->path, b->name, NULL, NULL); // Go owns the file and its folder now
        g_clear_pointer(&b->path, g_free);
        g_clear_pointer(&b->dir, g_free);
    }
    g_object_set_data(G_OBJECT(dl), "voicebox-download", NULL); // forget
}

static void on_download_started(WebKitWebContext *ctx, WebKitDownload *dl, gpointer unused)
{
    const char *uri = webkit_uri_request_get_uri(webkit_download_get_request(dl));
    gpointer tries = NULL;
    if (webkit_download_get_web_view(dl) != view || uri == NULL || !g_hash_table_lookup_extended(decided, uri, NULL, &tries)) {
        // Not one this file decided: a sandboxed frame starts none (no allow-downloads), and nothing else
        // in the window may write a file without the Save dialog.
        voiceboxGuardLog("cancelled a download the guard did not decide");
        webkit_download_cancel(dl);
        return;
    }
    blob_download *b = g_new0(blob_download, 1);
    b->uri = g_strdup(uri);
    b->tries = GPOINTER_TO_UINT(tries);
    g_hash_table_remove(decided, uri);
    g_object_set_data_full(G_OBJECT(dl), "voicebox-download", b, forget);
    g_signal_connect(dl, "decide-destination", G_CALLBACK(on_decide_destination), b);
    g_signal_connect(dl, "received-data", G_CALLBACK(on_received), b);
    g_signal_connect(dl, "failed", G_CALLBACK(on_failed), b);
    g_signal_connect(dl, "finished", G_CALLBACK(on_finished), b);
}

void vbg_guard_downloads(struct _WebKitWebView *wv)
{
    max_bytes = voiceboxGuardDownloadLimit();
    view = WEBKIT_WEB_VIEW(wv);
    g_object_add_weak_pointer(G_OBJECT(wv), (gpointer *)&view);
    decided = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_signal_connect(webkit_web_view_get_context(wv), "download-started", G_CALLBACK(on_download_started), NULL);
}
