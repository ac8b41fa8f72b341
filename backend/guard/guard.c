//go:build linux && cgo

// The Linux half of the guard, written against webkit2gtk-4.1 / GTK 3.
//
// Everything in this file runs on the GTK main thread (the emission hook,
// the signal handlers and the watchdog timer), except vbg_install, which runs
// once on the main goroutine before wails.Run and only adds the hook.

#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <string.h>
#include "guard.h"
#include "_cgo_export.h"

static char *room_origin;   // "wails://wails"
static char *room_scheme;   // "wails"
static char *world_name;    // the isolated world holding the handler
static char *forwarder_js;  // the isolated world's script (forwarder.js, applied in guard.go)
static char *page_js;       // the page world's script (page.js)
static char *take_mic_js;   // asks the isolated world for the microphone (takemic.js)
static int mock_capture;

static WebKitWebView *guarded;
static char *home_uri;      // last room URI that committed in the top frame

// watchdog state
static guint ping_ms, hang_ms, hang_cpu_ms;
static int cpu_wait_counts;     // Options.CPUWaitCounts (tests only)
static guint crash_restarts;    // CrashRestarts (guard.go)
static guint crashes_in_a_row;  // web process crashes since the room last finished loading
static gboolean armed;          // a room document committed since the last (re)start
static gboolean ping_pending;
static gint64 ping_sent_at;     // monotonic µs
static gint64 last_tick_at;     // monotonic µs: the watchdog's previous tick
// Since the pending ping was late (docs/performance.md, "Watchdog"): the web
// process's CPU time at the previous tick (ms; -1: none yet), how long it
// ran, and how long it went unanswered while it waited for nothing.
static gint64 seen_ran, ran_ms, unanswered_ms;
static guint ping_gen;
static GCancellable *ping_cancel;
static gboolean active_ok;      // the handler is confined and the scripts are in
// 0: no recovery; 1: room reload requested, waiting for it to commit;
// 2: committed, waiting for it to finish loading (then OnRecovered).
static int recovering;
static gint64 hang_detected_at;

static void glog(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void glog(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    voiceboxGuardLog(s);
    g_free(s);
}

// origin_of returns "scheme://host[:port]" for a URI, lower-cased, without a
// default port, or NULL when the URI has no host (about:, data:, blob:, ...).
static char *origin_of(const char *uri)
{
    if (uri == NULL)
        return NULL;
    GUri *u = g_uri_parse(uri, G_URI_FLAGS_NONE, NULL);
    if (u == NULL)
        return NULL;
    const char *scheme = g_uri_get_scheme(u);
    const char *host = g_uri_get_host(u);
    char *res = NULL;
    if (scheme != NULL && host != NULL && *host != '\0') {
        int port = g_uri_get_port(u);
        char *ls = g_ascii_strdown(scheme, -1);
        char *lh = g_ascii_strdown(host, -1);
        if (port < 0 || (port == 80 && strcmp(ls, "http") == 0) || (port == 443 && strcmp(ls, "https") == 0))
            res = g_strdup_printf("%s://%s", ls, lh);
        else
            res = g_strdup_printf("%s://%s:%d", ls, lh, port);
        g_free(ls);
        g_free(lh);
    }
    g_uri_unref(u);
    return res;
}

static gboolean is_room(const char *uri)
{
    char *o = origin_of(uri);
    gboolean ok = o != NULL && strcmp(o, room_origin) == 0;
    g_free(o);
    return ok;
}

static gboolean is_web(const char *uri)
{
    if (uri == NULL)
        return FALSE;
    char *s = g_uri_parse_scheme(uri);
    gboolean r = s != NULL && (g_ascii_strcasecmp(s, "http") == 0 || g_ascii_strcasecmp(s, "https") == 0);
    g_free(s);
    return r;
}

static gboolean is_loopback_web(const char *uri)
{
    if (!is_web(uri))
        return FALSE;
    GUri *u = g_uri_parse(uri, G_URI_FLAGS_NONE, NULL);
    if (u == NULL)
        return FALSE;
    const char *h = g_uri_get_host(u);
    gboolean r = h != NULL && (g_str_has_prefix(h, "127.") || g_ascii_strcasecmp(h, "localhost") == 0 || strcmp(h, "::1") == 0 || strcmp(h, "[::1]") == 0);
    g_uri_unref(u);
    return r;
}

// Schemes a frame may navigate to without a network request of its own
// choosing (about:blank, about:srcdoc, data:; blob: is blobdownload.c's).
static gboolean is_local_scheme(const char *uri)
{
    if (uri == NULL)
        return FALSE;
    char *s = g_uri_parse_scheme(uri);
    gboolean r = s != NULL && (g_ascii_strcasecmp(s, "about") == 0 || g_ascii_strcasecmp(s, "data") == 0);
    g_free(s);
    return r;
}

// ---- navigation -----------------------------------------------------------

// offer_external hands a refused remote http(s) URL to ConfirmExternal.
static void offer_external(const char *uri)
{
    if (is_web(uri) && !is_loopback_web(uri))
        voiceboxGuardExternal((char *)uri);
}

static gboolean on_decide_policy(WebKitWebView *wv, WebKitPolicyDecision *d,
                                 WebKitPolicyDecisionType type, gpointer unused)
{
    switch (type) {
    case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION: {
        // Emitted for the top frame and for subframes alike, and WebKitGTK
        // does not say which. So every frame is held to: the room's origin,
        // loopback http(s) (the mini-apps' asset server), about: and data:;
        // a blob: URL is a download or nothing (blobdownload.c). That refuses
        // a top-level navigation to a remote site before any request is sent;
        // the response policy below then holds the top frame to the room's
        // origin exactly.
        WebKitNavigationAction *a = webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(d));
        const char *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(a));
        if (vbg_is_blob(uri)) {
            vbg_decide_blob_navigation(d, a, uri);
            return TRUE;
        }
        if (is_room(uri) || is_loopback_web(uri) || is_local_scheme(uri))
            return FALSE;
        gboolean gesture = webkit_navigation_action_is_user_gesture(a);
        glog("refused navigation to %s (user gesture: %d)", uri, gesture);
        if (gesture)
            offer_external(uri);
        webkit_policy_decision_ignore(d);
        return TRUE;
    }
    case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION: {
        WebKitNavigationAction *a = webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(d));
        const char *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(a));
        gboolean gesture = webkit_navigation_action_is_user_gesture(a);
        glog("refused a new window for %s (user gesture: %d)", uri, gesture);
        if (gesture)
            offer_external(uri);
        webkit_policy_decision_ignore(d);
        return TRUE;
    }
    case WEBKIT_POLICY_DECISION_TYPE_RESPONSE: {
        WebKitResponsePolicyDecision *rd = WEBKIT_RESPONSE_POLICY_DECISION(d);
        const char *uri = webkit_uri_request_get_uri(webkit_response_policy_decision_get_request(rd));
        if (webkit_response_policy_decision_is_main_frame_main_resource(rd)) {
            if (!is_room(uri)) {
                glog("refused top-level document %s", uri);
                webkit_policy_decision_ignore(d);
                return TRUE;
            }
        } else if (is_room(uri)) {
            // A frame document from the room's origin would be same-origin
            // with the room and could reach window.top.WailsInvoke.
            glog("refused room document in a subframe: %s", uri);
            webkit_policy_decision_ignore(d);
            return TRUE;
        }
        return FALSE;
    }
    default:
        return FALSE;
    }
}

// window.open() asks for a new web view; there is none to give.
static GtkWidget *on_create(WebKitWebView *wv, WebKitNavigationAction *a, gpointer unused)
{
    const char *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(a));
    gboolean gesture = webkit_navigation_action_is_user_gesture(a);
    glog("refused a new window for %s (user gesture: %d)", uri ? uri : "(null)", gesture);
    if (gesture)
        offer_external(uri);
    return NULL;
}

// ---- watchdog -------------------------------------------------------------

static void stop_ping(void)
{
    if (ping_cancel != NULL) {
        g_cancellable_cancel(ping_cancel);
        g_clear_object(&ping_cancel);
    }
    ping_pending = FALSE;
    ping_gen++;
}

// recover restarts the web process and reloads the room. reason is one of
// "hang", "crash", "memory" (handed to Options.OnRecovering before anything
// is torn down); why is for the log.
static void recover(const char *reason, const char *why)
{
    glog("watchdog: %s; restarting the web process", why);
    voiceboxGuardRecovering((char *)reason);
    stop_ping();
    armed = FALSE;
    recovering = 1;
    hang_detected_at = g_get_monotonic_time();
    webkit_web_view_terminate_web_process(guarded);
    const char *cur = webkit_web_view_get_uri(guarded);
    if (cur != NULL && is_room(cur))
        webkit_web_view_reload(guarded);
    else if (home_uri != NULL)
        webkit_web_view_load_uri(guarded, home_uri);
    else
        webkit_web_view_reload(guarded);
}

static void ping_done(GObject *src, GAsyncResult *res, gpointer data)
{
    guint gen = GPOINTER_TO_UINT(data);
    GError *err = NULL;
    JSCValue *v = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(src), res, &err);
    if (v != NULL)
        g_object_unref(v);
    gboolean cancelled = err != NULL && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&err);
    if (cancelled || gen != ping_gen)
        return;
    // Any answer, even an error, means the web process is running.
    ping_pending = FALSE;
    g_clear_object(&ping_cancel);
}

// late_tick measures a tick of a late ping (dt_ms since the previous tick)
// and says whether the web process hangs: it ran hang_cpu_ms on a CPU (it
// spins), or hang_ms went by without an answer, not counting the ticks at
// which it waited for a CPU or the disk (a loaded machine that does not run
// it).
static gboolean late_tick(gint64 dt_ms)
{
    long long ran;
    int waiting;
    if (cpu_wait_counts || !voiceboxGuardWebSample(&ran, &waiting)) {
        unanswered_ms += dt_ms; // nothing to measure: the wall clock alone
    } else {
        if (seen_ran >= 0) {
            ran_ms += MAX(0, ran - seen_ran);
            if (!waiting)
                unanswered_ms += dt_ms;
        }
        seen_ran = ran;
    }
    if (hang_cpu_ms > 0 && ran_ms >= hang_cpu_ms) {
        glog("watchdog: no answer, while the web process ran %" G_GINT64_FORMAT " ms on a CPU", ran_ms);
        return TRUE;
    }
    if (unanswered_ms >= hang_ms) {
        glog("watchdog: no answer for %" G_GINT64_FORMAT " ms while the web process waited for no CPU", unanswered_ms);
        return TRUE;
    }
    return FALSE;
}

static gboolean watchdog_tick(gpointer unused)
{
    if (guarded == NULL)
        return G_SOURCE_REMOVE;
    gint64 now = g_get_monotonic_time();
    // A tick that comes late means this (GTK) thread did not run: the time
    // beyond two intervals is not the web process's to answer in.
    gint64 dt_ms = MIN((now - last_tick_at) / 1000, 2 * (gint64)ping_ms);
    last_tick_at = now;
    if (!armed)
        return G_SOURCE_CONTINUE;
    if (ping_pending) {
        if (now - ping_sent_at >= (gint64)ping_ms * 1000 && late_tick(dt_ms))
            recover("hang", "the room stopped answering");
        return G_SOURCE_CONTINUE;
    }
    ping_pending = TRUE;
    ping_sent_at = now;
    seen_ran = -1;
    ran_ms = unanswered_ms = 0;
    ping_cancel = g_cancellable_new();
    webkit_web_view_evaluate_javascript(guarded, "0", -1, world_name, NULL, ping_cancel,
                                        ping_done, GUINT_TO_POINTER(ping_gen));
    return G_SOURCE_CONTINUE;
}

static void on_load_changed(WebKitWebView *wv, WebKitLoadEvent ev, gpointer unused)
{
    const char *uri = webkit_web_view_get_uri(wv);
    switch (ev) {
    case WEBKIT_LOAD_COMMITTED:
        if (!is_room(uri)) {
            // Only about:blank-like documents can get here (see
            // on_decide_policy); the scripts do nothing outside the room's
            // origin. Bring the room back.
            glog("a foreign document committed in the top frame (%s); reloading the room", uri ? uri : "(null)");
            stop_ping();
            armed = FALSE;
            if (home_uri != NULL) {
                voiceboxGuardRecovering("navigation");
                recovering = 1;
                hang_detected_at = g_get_monotonic_time();
                webkit_web_view_load_uri(wv, home_uri);
            }
            break;
        }
        g_free(home_uri);
        home_uri = g_strdup(uri);
        stop_ping();
        armed = TRUE;
        if (recovering == 1)
            recovering = 2;
        break;
    case WEBKIT_LOAD_FINISHED:
        if (is_room(uri))
            crashes_in_a_row = 0;
        if (recovering == 2 && is_room(uri)) {
            recovering = 0;
            gint64 ms = (g_get_monotonic_time() - hang_detected_at) / 1000;
            glog("room reloaded %" G_GINT64_FORMAT " ms after the recovery started", ms);
            voiceboxGuardRecovered((int)ms);
        }
        break;
    default:
        break;
    }
}

static gboolean on_load_failed(WebKitWebView *wv, WebKitLoadEvent ev, const char *uri, GError *err, gpointer unused)
{
    // No error page in the top frame for anything but the room.
    return !is_room(uri);
}

static void on_terminated(WebKitWebView *wv, WebKitWebProcessTerminationReason reason, gpointer unused)
{
    if (reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API)
        return; // our own recover()
    if (reason == WEBKIT_WEB_PROCESS_CRASHED) {
        // A web process that crashes each time before the room can load (WebKit aborts when it finds no
        // usable EGL, say) would be restarted forever, an empty window burning a core: after
        // crash_restarts restarts the guard stops, and Go tells the person why (Options.OnGaveUp).
        if (++crashes_in_a_row > crash_restarts) {
            stop_ping();
            armed = FALSE;
            recovering = 0;
            glog("watchdog: the web process crashed %u times in a row before the room could load; not restarting it", crashes_in_a_row);
            voiceboxGuardGaveUp();
            return;
        }
        recover("crash", "the web process crashed");
    } else
        recover("memory", "the web process exceeded its memory limit");
}

// ---- permissions and dialogs ----------------------------------------------

static void mic_decided(GObject *src, GAsyncResult *res, gpointer data)
{
    WebKitPermissionRequest *req = WEBKIT_PERMISSION_REQUEST(data);
    GError *err = NULL;
    JSCValue *v = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(src), res, &err);
    gboolean ok = v != NULL && jsc_value_is_boolean(v) && jsc_value_to_boolean(v);
    const char *uri = webkit_web_view_get_uri(WEBKIT_WEB_VIEW(src));
    ok = ok && is_room(uri);
    if (v != NULL)
        g_object_unref(v);
    g_clear_error(&err);
    if (ok) {
        glog("granted the microphone to the room");
        webkit_permission_request_allow(req);
    } else {
        glog("denied a microphone request that did not come from the room's document");
        webkit_permission_request_deny(req);
    }
    g_object_unref(req);
}

static gboolean on_permission(WebKitWebView *wv, WebKitPermissionRequest *req, gpointer unused)
{
    const char *uri = webkit_web_view_get_uri(wv);
    if (WEBKIT_IS_USER_MEDIA_PERMISSION_REQUEST(req)) {
        WebKitUserMediaPermissionRequest *um = WEBKIT_USER_MEDIA_PERMISSION_REQUEST(req);
        gboolean audio = webkit_user_media_permission_is_for_audio_device(um);
        gboolean video = webkit_user_media_permission_is_for_video_device(um);
        gboolean display = webkit_user_media_permission_is_for_display_device(um);
        if (audio && !video && !display && is_room(uri) && active_ok) {
            // Audio only, and the top document is the room: ask the isolated
            // world whether the room's own document has a getUserMedia call
            // in flight that has not been matched to a request yet.
            g_object_ref(req);
            webkit_web_view_evaluate_javascript(wv, take_mic_js, -1, world_name, NULL, NULL, mic_decided, req);
            return TRUE;
        }
        glog("denied capture (audio %d, video %d, display %d)", audio, video, display);
    } else {
        glog("denied permission request %s", G_OBJECT_TYPE_NAME(req));
    }
    webkit_permission_request_deny(req);
    return TRUE;
}

static gboolean on_script_dialog(WebKitWebView *wv, WebKitScriptDialog *dialog, gpointer unused)
{
    // A modal dialog stalls the shared web process (and so the watchdog) and
    // lets any frame put UI over the room: none are shown.
    switch (webkit_script_dialog_get_dialog_type(dialog)) {
    case WEBKIT_SCRIPT_DIALOG_CONFIRM:
        webkit_script_dialog_confirm_set_confirmed(dialog, FALSE);
        break;
    case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM:
        webkit_script_dialog_confirm_set_confirmed(dialog, TRUE);
        break;
    default:
        break;
    }
    glog("suppressed a script dialog");
    return TRUE;
}

// ---- network quiet ----------------------------------------------------------

// Ways a frame reaches the network that are not navigations, so decide-policy
// never sees them: WebRTC (off by default; set off explicitly, in case a
// build or a default changes) and the resource hints that resolve or connect
// to a host a page names (<link rel=dns-prefetch|preconnect|prefetch>, and
// preconnects from Early Hints). The enable-dns-prefetching setting no longer
// governs those (deprecated, always FALSE in 2.4x), the LinkDNSPrefetch and
// LinkPreconnect features do. What the settings read back is logged; the
// guard's lab test checks that line and what the frames resolve.
static const char *const quiet_features[] = {
    "LinkDNSPrefetch", "LinkPreconnect", "LinkPreconnectEarlyHints", "LinkPrefetch",
};

static void quiet_network(WebKitSettings *st)
{
    webkit_settings_set_enable_webrtc(st, FALSE);
    GString *got = g_string_new(NULL);
    g_string_append_printf(got, "enable-webrtc=%d", webkit_settings_get_enable_webrtc(st));
    WebKitFeatureList *all = webkit_settings_get_all_features();
    for (gsize q = 0; q < G_N_ELEMENTS(quiet_features); q++) {
        WebKitFeature *found = NULL;
        for (gsize i = 0; i < webkit_feature_list_get_length(all) && found == NULL; i++) {
            WebKitFeature *f = webkit_feature_list_get(all, i);
            if (strcmp(webkit_feature_get_identifier(f), quiet_features[q]) == 0)
                found = f;
        }
        if (found == NULL) {
            g_string_append_printf(got, " %s=absent", quiet_features[q]);
            continue;
        }
        webkit_settings_set_feature_enabled(st, found, FALSE);
        g_string_append_printf(got, " %s=%d", quiet_features[q], webkit_settings_get_feature_enabled(st, found));
    }
    webkit_feature_list_unref(all);
    glog("network quiet: %s", got->str);
    g_string_free(got, TRUE);
}

// ---- installation ---------------------------------------------------------

static void add_script(WebKitUserContentManager *m, const char *src, const char *world)
{
    WebKitUserScript *s = world != NULL
        ? webkit_user_script_new_for_world(src, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, world, NULL, NULL)
        : webkit_user_script_new(src, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
    webkit_user_content_manager_add_script(m, s);
    webkit_user_script_unref(s);
}

static void guard_webview(WebKitWebView *wv)
{
    guarded = wv;
    g_object_add_weak_pointer(G_OBJECT(wv), (gpointer *)&guarded);

    // Navigation, permissions and dialogs are guarded even if confining the
    // handler fails below.
    g_signal_connect(wv, "decide-policy", G_CALLBACK(on_decide_policy), NULL);
    g_signal_connect(wv, "load-changed", G_CALLBACK(on_load_changed), NULL);
    g_signal_connect(wv, "create", G_CALLBACK(on_create), NULL);
    g_signal_connect(wv, "load-failed", G_CALLBACK(on_load_failed), NULL);
    g_signal_connect(wv, "permission-request", G_CALLBACK(on_permission), NULL);
    g_signal_connect(wv, "script-dialog", G_CALLBACK(on_script_dialog), NULL);
    g_signal_connect(wv, "web-process-terminated", G_CALLBACK(on_terminated), NULL);
    vbg_guard_drops(wv);
    vbg_guard_downloads(wv);

    WebKitWebContext *ctx = webkit_web_view_get_context(wv);
    WebKitSecurityManager *sm = webkit_web_context_get_security_manager(ctx);
    // Pages of other schemes (the mini-apps' http origin) may not display
    // room URIs, e.g. in an iframe. (Not for an http(s) room, as in a
    // development setup: the response policy below still applies.)
    if (!is_web(room_origin))
        webkit_security_manager_register_uri_scheme_as_display_isolated(sm, room_scheme);

    WebKitSettings *st = webkit_web_view_get_settings(wv);
    quiet_network(st);
    webkit_settings_set_enable_media_stream(st, TRUE);
    if (mock_capture) {
        webkit_settings_set_enable_mock_capture_devices(st, TRUE);
        glog("mock capture devices enabled");
    }

    WebKitUserContentManager *m = webkit_web_view_get_user_content_manager(wv);
    webkit_user_content_manager_unregister_script_message_handler(m, "external");
    if (!webkit_user_content_manager_register_script_message_handler_in_world(m, "external", world_name)) {
        // Fail closed: no world has the handler, so nothing reaches Go.
        glog("could not register the IPC handler in the isolated world; IPC is off");
        voiceboxGuardState(0);
        return;
    }

    add_script(m, forwarder_js, world_name);
    add_script(m, page_js, NULL);

    if (ping_ms > 0 && hang_ms > 0)
        g_timeout_add(ping_ms, watchdog_tick, NULL);

    active_ok = TRUE;
    voiceboxGuardState(1);
}

static gboolean parent_set_hook(GSignalInvocationHint *hint, guint n, const GValue *params, gpointer unused)
{
    if (n < 1)
        return TRUE;
    GObject *obj = g_value_get_object(&params[0]);
    if (obj == NULL || !WEBKIT_IS_WEB_VIEW(obj))
        return TRUE; // keep waiting
    if (gtk_widget_get_parent(GTK_WIDGET(obj)) == NULL)
        return TRUE;
    guard_webview(WEBKIT_WEB_VIEW(obj));
    return FALSE; // only the first web view; remove the hook
}

int vbg_install(const char *origin, const char *world, const char *forwarder, const char *page,
                const char *take_mic, int mock, unsigned int ping, unsigned int hang,
                unsigned int hang_cpu, int wait_counts, unsigned int crashes)
{
    room_origin = g_strdup(origin);
    room_scheme = g_uri_parse_scheme(origin);
    if (room_scheme == NULL)
        return -1;
    world_name = g_strdup(world);
    forwarder_js = g_strdup(forwarder);
    page_js = g_strdup(page);
    take_mic_js = g_strdup(take_mic);
    mock_capture = mock;
    ping_ms = ping;
    hang_ms = hang;
    hang_cpu_ms = hang_cpu;
    cpu_wait_counts = wait_counts;
    crash_restarts = crashes;
    last_tick_at = g_get_monotonic_time();

    // Make sure the classes (and so the signals) exist before gtk_init.
    g_type_class_ref(GTK_TYPE_WIDGET);
    g_type_ensure(WEBKIT_TYPE_WEB_VIEW);
    guint sig = g_signal_lookup("parent-set", GTK_TYPE_WIDGET);
    if (sig == 0)
        return -2;
    if (g_signal_add_emission_hook(sig, 0, parent_set_hook, NULL, NULL) == 0)
        return -3;
    return 0;
}
