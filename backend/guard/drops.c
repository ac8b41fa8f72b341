//go:build linux && cgo

// File drops (guard.go's package comment; docs/sandbox.md, "Desktop: IPC guard and watchdog"). Runs on the
// GTK main thread, like guard.c.

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include "guard.h"
#include "_cgo_export.h"

// Wails v2.9.2 (internal/frontend/desktop/linux/window.c, SetupWebview) connects drag-data-received and
// drag-drop on the web view and turns any text/uri-list drop into the person's file drop, also a drag
// WebKit started from page content: a mini-app's dragstart chooses that uri-list, and the person only
// moved a card inside the app. vbg_guard_drops replaces those two handlers with these, which forward a drop
// only when the drag came from another application: GTK knows the source widget of a drag that started
// in this process, and knows none for a drag from elsewhere.

static char **drop_uris; // the uri-list of the drag over the web view, when it came from elsewhere

static gboolean from_this_process(GdkDragContext *ctx)
{
    return gtk_drag_get_source_widget(ctx) != NULL;
}

static void on_drag_data(GtkWidget *w, GdkDragContext *ctx, gint x, gint y, GtkSelectionData *data,
                         guint info, guint time, gpointer unused)
{
    if (data == NULL || from_this_process(ctx))
        return;
    gchar **uris = gtk_selection_data_get_uris(data);
    if (uris == NULL)
        return;
    g_strfreev(drop_uris);
    drop_uris = uris;
}

static gboolean on_drag_drop(GtkWidget *w, GdkDragContext *ctx, gint x, gint y, guint time, gpointer unused)
{
    if (from_this_process(ctx)) {
        voiceboxGuardLog("ignored a drop of a drag that started in the window (not a file from another application)");
    } else if (drop_uris != NULL) {
        GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
        for (char **u = drop_uris; *u != NULL; u++) {
            char *p = g_filename_from_uri(*u, NULL, NULL); // file: URIs only
            if (p != NULL)
                g_ptr_array_add(paths, p);
        }
        if (paths->len > 0)
            voiceboxGuardFileDrop((char **)paths->pdata, (int)paths->len);
        g_ptr_array_unref(paths);
    }
    g_strfreev(drop_uris);
    drop_uris = NULL;
    return FALSE; // WebKit's own handling follows (it navigates to the file: refused above)
}

void vbg_guard_drops(struct _WebKitWebView *wv)
{
    // Wails connects its two handlers with no user data (GLib matches handlers only by closure, function
    // or data, so by data: NULL); WebKit's own drop handling is the class's, not a handler.
    guint replaced = 0;
    const char *sigs[] = {"drag-data-received", "drag-drop"};
    for (size_t i = 0; i < G_N_ELEMENTS(sigs); i++)
        replaced += g_signal_handlers_disconnect_matched(wv, G_SIGNAL_MATCH_ID | G_SIGNAL_MATCH_DATA,
                                                         g_signal_lookup(sigs[i], GTK_TYPE_WIDGET), 0, NULL, NULL, NULL);
    g_signal_connect(wv, "drag-data-received", G_CALLBACK(on_drag_data), NULL);
    g_signal_connect(wv, "drag-drop", G_CALLBACK(on_drag_drop), NULL);
    char *msg = g_strdup_printf("file drops: only from other applications (replaced %u handler(s))", replaced);
    voiceboxGuardLog(msg);
    g_free(msg);
}
