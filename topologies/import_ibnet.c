/* ibnetdiscover output (infiniband-diags) to an explicit network.
 *
 * Node blocks (vendid/devid/...guid lines, then "Switch|Ca|Rt NPORTS
 * "ID" # "DESCRIPTION" ...") followed by port lines
 * "[LOCAL](GUID) "PEER"[PEERPORT](GUID) # ... WIDTHxSPEED"; every link is
 * printed from both ends and is deduplicated.  Host channel adapters are
 * grouped into servers by host name, the first word of their description
 * when the second names an adapter ("node01 mlx5_0"); one GPU per adapter
 * is assumed.  Switch-to-switch links between the same pair with the same
 * width and speed become one bundle.  Widths and speeds name the link
 * models (4xNDR: ib-ndr-4x); EDR to XDR are modelled. */
#include <string.h>

#include "models/params.h"
#include "topologies/import.h"

#define IMPORT_ERROR MDL_ERROR

typedef struct {
  char *id;   /* "S-0008f10400410015" */
  char *desc; /* node description */
  gboolean sw;
  guint32 nports;
  GArray *ports; /* IbPort, by local port */
} IbNode;

typedef struct {
  guint32 local;
  char *peer;
  guint32 peer_port;
  guint32 width;
  char speed[8];
} IbPort;

static void ib_node_free(gpointer p)
{
  IbNode *n = p;
  for (guint i = 0; i < n->ports->len; i++)
    g_free(g_array_index(n->ports, IbPort, i).peer);
  g_array_free(n->ports, TRUE);
  g_free(n->id);
  g_free(n->desc);
  g_free(n);
}

/* "foo" at *p: copies foo, advances past the closing quote. */
static char *quoted(const char **p)
{
  const char *a = strchr(*p, '"'), *b;
  if (!a)
    return NULL;
  b = strchr(a + 1, '"');
  if (!b)
    return NULL;
  *p = b + 1;
  return g_strndup(a + 1, (gsize)(b - a - 1));
}

/* The last WIDTHxSPEED token of a comment, e.g. "4xNDR". */
static gboolean width_speed(const char *s, guint32 *width, char speed[8])
{
  gboolean found = FALSE;
  g_auto(GStrv) t = mdl_split_words(s);

  for (guint i = 0; t[i]; i++) {
    char *x = strchr(t[i], 'x');
    guint64 w;
    g_autofree char *wtext = x ? g_strndup(t[i], (gsize)(x - t[i])) : NULL;
    if (x && g_ascii_string_to_unsigned(wtext, 10, 1, 12, &w, NULL) &&
        strlen(x + 1) > 0 && strlen(x + 1) < 8) {
      *width = (guint32)w;
      g_strlcpy(speed, x + 1, 8);
      found = TRUE;
    }
  }
  return found;
}

static gboolean parse(const char *text, const char *source, GPtrArray *nodes,
                      GError **error)
{
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  IbNode *cur = NULL;

  for (guint li = 0; lines[li]; li++) {
    char *l = g_strstrip(lines[li]);
    if (!*l || *l == '#' || (strchr(l, '=') && *l != '['))
      continue; /* blank, comment, vendid=/devid=/...guid= */
    if (g_str_has_prefix(l, "Switch") || g_str_has_prefix(l, "Ca") ||
        g_str_has_prefix(l, "Rt")) {
      const char *p = l + strcspn(l, " \t");
      guint64 np;
      g_autofree char *num = NULL;
      char *hash;
      p += strspn(p, " \t");
      num = g_strndup(p, strcspn(p, " \t"));
      if (!g_ascii_string_to_unsigned(num, 10, 1, 4096, &np, NULL)) {
        g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                    "%s:%u: '%s' is not NODETYPE NPORTS \"ID\"", source, li + 1,
                    l);
        return FALSE;
      }
      cur = g_new0(IbNode, 1);
      cur->sw = l[0] != 'C';
      cur->nports = (guint32)np;
      cur->ports = g_array_new(FALSE, FALSE, sizeof(IbPort));
      cur->id = quoted(&p);
      hash = strchr(p, '#');
      if (hash) {
        const char *q = hash;
        cur->desc = quoted(&q);
      }
      if (!cur->id) {
        ib_node_free(cur);
        g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                    "%s:%u: node line without a quoted \"ID\"", source, li + 1);
        return FALSE;
      }
      if (!cur->desc)
        cur->desc = g_strdup(cur->id);
      g_ptr_array_add(nodes, cur);
      continue;
    }
    if (*l == '[') {
      IbPort port = {0};
      const char *p = l + 1, *after;
      guint64 v;
      g_autofree char *local = g_strndup(p, strcspn(p, "]"));
      if (!cur || !g_ascii_string_to_unsigned(local, 10, 0, 4096, &v, NULL)) {
        g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                    "%s:%u: a port line outside a node, or '%s' is not "
                    "[PORT]",
                    source, li + 1, l);
        return FALSE;
      }
      port.local = (guint32)v;
      port.peer = quoted(&p);
      after = p;
      if (!port.peer || *after != '[') {
        g_free(port.peer);
        g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                    "%s:%u: expected \"PEER\"[PORT] in '%s'", source, li + 1,
                    l);
        return FALSE;
      }
      port.peer_port = (guint32)g_ascii_strtoull(after + 1, NULL, 10);
      if (!width_speed(l, &port.width, port.speed)) {
        g_free(port.peer);
        g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                    "%s:%u: no WIDTHxSPEED (such as 4xNDR) in '%s'", source,
                    li + 1, l);
        return FALSE;
      }
      g_array_append_val(cur->ports, port);
      continue;
    }
  }
  return TRUE;
}

static IbNode *find(GPtrArray *nodes, const char *id)
{
  for (guint i = 0; i < nodes->len; i++) {
    IbNode *n = nodes->pdata[i];
    if (strcmp(n->id, id) == 0)
      return n;
  }
  return NULL;
}

/* Host name of an adapter, or NULL when the description names none. */
static char *host_of(const IbNode *n)
{
  g_auto(GStrv) w = g_strsplit(n->desc, " ", 3);
  if (w[0] && w[1] &&
      (g_str_has_prefix(w[1], "mlx") || g_str_has_prefix(w[1], "hfi") ||
       g_str_has_prefix(w[1], "HCA") || g_str_has_prefix(w[1], "ibp")))
    return g_strdup(w[0]);
  return NULL;
}

static gboolean link_model(const IbPort *p, char out[32], const char *source,
                           GError **error)
{
  g_autofree char *speed = g_ascii_strdown(p->speed, -1);

  if ((strcmp(speed, "edr") && strcmp(speed, "hdr") && strcmp(speed, "ndr") &&
       strcmp(speed, "xdr")) ||
      (p->width != 1 && p->width != 2 && p->width != 4)) {
    g_set_error(error, IMPORT_ERROR, MDL_ERROR_VALUE,
                "%s: %ux%s links are not modelled (EDR, HDR, NDR or XDR at "
                "1x, 2x or 4x)",
                source, p->width, p->speed);
    return FALSE;
  }
  g_snprintf(out, 32, "ib-%s-%ux", speed, p->width);
  return TRUE;
}

/* ifsim switch names: the ID, lower-cased, '-' dropped ("S-00a" -> s00a). */
static char *sw_name(const char *id)
{
  GString *s = g_string_new(NULL);
  for (const char *p = id; *p; p++) {
    if (g_ascii_isalnum(*p))
      g_string_append_c(s, g_ascii_tolower(*p));
  }
  return g_string_free(s, FALSE);
}

char *topo_import_ibnet(const char *text, gsize len, const char *source,
                        const TopoImportOptions *opt, GError **error);

char *topo_import_ibnet(const char *text, gsize len, const char *source,
                        const TopoImportOptions *opt, GError **error)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new_with_free_func(ib_node_free);
  g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) host_cas =
      g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  g_autoptr(GString) out = g_string_new(NULL);
  g_autoptr(GString) sws = g_string_new(NULL);
  g_autoptr(GString) links = g_string_new(NULL);
  g_autoptr(GString) attach = g_string_new(NULL);
  g_autofree char *text0 = g_strndup(text, len);
  char net_link[32] = "", ca_link[32] = "";
  guint32 max_ports = 0, cas_per_host = 0, ca_ports = 0;
  const char *sw_base = "quantum-hdr";

  if (!parse(text0, source, nodes, error))
    return NULL;
  /* servers: adapters grouped by host name */
  for (guint i = 0; i < nodes->len; i++) {
    IbNode *n = nodes->pdata[i];
    g_autofree char *h = NULL;
    guint k;
    if (n->sw) {
      max_ports = MAX(max_ports, n->nports);
      continue;
    }
    h = host_of(n);
    if (!h)
      h = g_strdup(n->id);
    for (k = 0; k < hosts->len; k++) {
      if (strcmp(hosts->pdata[k], h) == 0)
        break;
    }
    if (k == hosts->len) {
      g_ptr_array_add(hosts, g_strdup(h));
      g_ptr_array_add(host_cas, g_ptr_array_new());
    }
    g_ptr_array_add(host_cas->pdata[k], n);
  }
  if (hosts->len == 0) {
    g_set_error(error, IMPORT_ERROR, MDL_ERROR_SYNTAX,
                "%s: no Ca (host channel adapter) node", source);
    return NULL;
  }
  for (guint k = 0; k < hosts->len; k++) {
    GPtrArray *cas = host_cas->pdata[k];
    if (k && cas->len != cas_per_host) {
      g_set_error(error, IMPORT_ERROR, MDL_ERROR_CONFLICT,
                  "%s: host %s has %u adapters, host %s %u: ifsim servers "
                  "are alike",
                  source, (char *)hosts->pdata[k], cas->len,
                  (char *)hosts->pdata[0], cas_per_host);
      return NULL;
    }
    cas_per_host = cas->len;
    for (guint c = 0; c < cas->len; c++) {
      IbNode *ca = cas->pdata[c];
      if (k == 0 && c == 0)
        ca_ports = ca->ports->len;
      if (ca->ports->len != ca_ports || ca_ports == 0) {
        g_set_error(error, IMPORT_ERROR, MDL_ERROR_CONFLICT,
                    "%s: adapter %s has %u connected ports, others %u", source,
                    ca->id, ca->ports->len, ca_ports);
        return NULL;
      }
      for (guint p = 0; p < ca->ports->len; p++) {
        const IbPort *port = &g_array_index(ca->ports, IbPort, p);
        IbNode *peer = find(nodes, port->peer);
        g_autofree char *peer_name = NULL;
        if (!peer || !peer->sw) {
          g_set_error(error, IMPORT_ERROR, MDL_ERROR_CONFLICT,
                      "%s: adapter %s port %u leads to %s, not a listed "
                      "switch",
                      source, ca->id, port->local, port->peer);
          return NULL;
        }
        if (!link_model(port, ca_link, source, error))
          return NULL;
        peer_name = sw_name(peer->id);
        g_string_append_printf(attach, "%s%u.%u.%u %s", attach->len ? "; " : "",
                               k, c, p, peer_name);
      }
    }
  }
  /* switches and their links, both directions printed: keep a < b */
  for (guint i = 0; i < nodes->len; i++) {
    IbNode *n = nodes->pdata[i];
    g_autofree char *name = NULL;
    GHashTable *bundles;
    GPtrArray *order;
    if (!n->sw)
      continue;
    name = sw_name(n->id);
    g_string_append_printf(sws, "%s%s", sws->len ? "; " : "", name);
    bundles = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    order = g_ptr_array_new();
    for (guint p = 0; p < n->ports->len; p++) {
      const IbPort *port = &g_array_index(n->ports, IbPort, p);
      IbNode *peer = find(nodes, port->peer);
      char model[32];
      g_autofree char *peer_name = NULL;
      char *key;
      if (!peer || !peer->sw || strcmp(n->id, peer->id) >= 0)
        continue;
      if (!link_model(port, model, source, error)) {
        g_hash_table_destroy(bundles);
        g_ptr_array_free(order, TRUE);
        return NULL;
      }
      if (!*net_link)
        g_strlcpy(net_link, model, sizeof net_link);
      peer_name = sw_name(peer->id);
      key = g_strdup_printf("%s %s", peer_name, model);
      if (!g_hash_table_contains(bundles, key))
        g_ptr_array_add(order, key);
      g_hash_table_insert(
          bundles, key,
          GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(bundles, key)) +
                           1));
    }
    for (guint b = 0; b < order->len; b++) {
      const char *key = order->pdata[b];
      g_auto(GStrv) pm = g_strsplit(key, " ", 2);
      g_string_append_printf(
          links, "%s%s %s x%u %s", links->len ? "; " : "", name, pm[0],
          GPOINTER_TO_UINT(g_hash_table_lookup(bundles, key)), pm[1]);
    }
    g_hash_table_destroy(bundles);
    g_ptr_array_free(order, TRUE);
  }
  if (!*net_link)
    g_strlcpy(net_link, ca_link, sizeof net_link);
  if (strstr(net_link, "ndr") || strstr(net_link, "xdr"))
    sw_base = "quantum2-ndr";

  g_string_append_printf(
      out,
      "# Imported from %s (ibnetdiscover) by ifsim topo --import.\n"
      "# %u hosts of %u adapters with %u connected port(s) each; one GPU "
      "per adapter is assumed.\n"
      "# Switches: %s with %u ports; adapters: %s ports.\n\n",
      source, hosts->len, cas_per_host, ca_ports, sw_base, max_ports, ca_link);
  g_string_append_printf(out, "[system]\ndescription = Imported from %s\n",
                         source);
  if (opt->server) {
    g_string_append_printf(out, "server = %s\nservers = %u\n\n", opt->server,
                           hosts->len);
  } else {
    g_string_append_printf(
        out,
        "server = imported-host\nservers = %u\n\n"
        "[server imported-host]\ndescription = Host of %s\ngpus = %u\n"
        "sockets = 1\nnic = imported-nic\nnics = %u\n\n"
        "[nic imported-nic]\nbased_on = %s\nport_link = %s\nports = %u\n\n",
        hosts->len, source, cas_per_host, cas_per_host,
        strstr(ca_link, "ndr") || strstr(ca_link, "xdr") ? "cx7-ndr"
                                                         : "cx6-hdr",
        ca_link, ca_ports);
  }
  g_string_append_printf(out,
                         "[switch imported-switch]\nbased_on = %s\n"
                         "ports = %u\nport_link = %s\n\n",
                         sw_base, MAX(max_ports, 2), net_link);
  g_string_append_printf(out,
                         "[scaleout]\ntopology = explicit\n"
                         "switch = imported-switch\nlink = %s\n\n"
                         "[network]\nswitches = %s\nlinks = %s\nattach = %s\n",
                         net_link, sws->str, links->str, attach->str);
  return g_string_free(g_steal_pointer(&out), FALSE);
}
