// dragsrc is a tiny GTK drag source for the drop test: a window at the top-left corner whose button drags
// the URI given on the command line, as a file manager would.
#include <gtk/gtk.h>
static const char *uri;
static void on_get(GtkWidget *w, GdkDragContext *c, GtkSelectionData *d, guint info, guint time, gpointer u) {
  gchar *uris[] = {(gchar *)uri, NULL};
  gtk_selection_data_set_uris(d, uris);
}
int main(int argc, char **argv) {
  gtk_init(&argc, &argv);
  uri = argv[1];
  GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title(GTK_WINDOW(win), "dragsrc");
  gtk_window_set_default_size(GTK_WINDOW(win), 120, 120);
  gtk_window_move(GTK_WINDOW(win), 0, 0);
  GtkWidget *btn = gtk_button_new_with_label("drag me");
  GtkTargetEntry t = {"text/uri-list", 0, 0};
  gtk_drag_source_set(btn, GDK_BUTTON1_MASK, &t, 1, GDK_ACTION_COPY);
  g_signal_connect(btn, "drag-data-get", G_CALLBACK(on_get), NULL);
  gtk_container_add(GTK_CONTAINER(win), btn);
  g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
  gtk_widget_show_all(win);
  gtk_main();
  return 0;
}
