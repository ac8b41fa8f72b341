//go:build linux && cgo

// The engine's half of the trace (webview.Watch): GTK and WebKit signals of the first web view,
// and the room's first-contentful-paint read from its Performance timeline. Runs on the GTK thread.

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include "_cgo_export.h"

static WebKitWebView *watched;
static guint paint_timer;
static gboolean painted;

static const char paint_js[] =
    "(function(){var e=performance.getEntriesByName('first-contentful-paint')[0];"
    "return e?performance.timeOrigin+e.startTime:0})()";

static void paint_read(GObject *src, GAsyncResult *res, gpointer unused)
{
    JSCValue *v = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(src), res, NULL);
    if (v == NULL)
        return;
    double ms = jsc_value_is_number(v) ? jsc_value_to_double(v) : 0;
    g_object_unref(v);
    if (ms > 0 && !painted) {
        painted = TRUE;
        if (paint_timer != 0)
            g_source_remove(paint_timer);
        paint_timer = 0;
        voiceboxTraceMark("room-painted", ms);
    }
}

static gboolean paint_poll(gpointer unused)
{
    if (watched == NULL || painted) {
        paint_timer = 0;
        return G_SOURCE_REMOVE;
    }
    webkit_web_view_evaluate_javascript(watched, paint_js, -1, "voicebox-trace", NULL, NULL, paint_read, NULL);
    return G_SOURCE_CONTINUE;
}

static void on_load(WebKitWebView *wv, WebKitLoadEvent ev, gpointer unused)
{
    if (ev == WEBKIT_LOAD_STARTED) {
        voiceboxTraceMark("room-load-started", 0);
    } else if (ev == WEBKIT_LOAD_COMMITTED) {
        voiceboxTraceMark("room-committed", 0);
        if (paint_timer == 0 && !painted)
            paint_timer = g_timeout_add(10, paint_poll, NULL);
    } else if (ev == WEBKIT_LOAD_FINISHED) {
        voiceboxTraceMark("room-loaded", 0);
    }
}

static void on_map(GtkWidget *w, gpointer unused)
{
    voiceboxTraceMark("window-shown", 0);
}

static void on_web_process(WebKitWebContext *ctx, gpointer unused)
{
    voiceboxTraceMark("web-process-starting", 0);
}

static gboolean parent_set(GSignalInvocationHint *hint, guint n, const GValue *params, gpointer unused)
{
    GObject *obj = n > 0 ? g_value_get_object(&params[0]) : NULL;
    if (obj == NULL || !WEBKIT_IS_WEB_VIEW(obj) || gtk_widget_get_parent(GTK_WIDGET(obj)) == NULL)
        return TRUE;
    watched = WEBKIT_WEB_VIEW(obj);
    voiceboxTraceMark("webview-parented", 0);
    g_object_add_weak_pointer(obj, (gpointer *)&watched);
    g_signal_connect(webkit_web_view_get_context(watched), "initialize-web-extensions", G_CALLBACK(on_web_process), NULL);
    g_signal_connect(obj, "load-changed", G_CALLBACK(on_load), NULL);
    g_signal_connect(obj, "map", G_CALLBACK(on_map), NULL);
    return FALSE;
}

void vbt_watch(void)
{
    g_type_class_ref(GTK_TYPE_WIDGET);
    g_type_ensure(WEBKIT_TYPE_WEB_VIEW);
    guint sig = g_signal_lookup("parent-set", GTK_TYPE_WIDGET);
    if (sig != 0)
        g_signal_add_emission_hook(sig, 0, parent_set, NULL, NULL);
}
