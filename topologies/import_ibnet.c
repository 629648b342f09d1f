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
 * models (4xNDR: ib-ndr-4x); EDR to XDR are modelled.
 *
 * Input is checked, never guessed: every line is a known KEY=0xHEX, a node
 * line, a port line, a comment or a -g grouping line; a port is listed
 * once, within its node's port count; node IDs and port GUIDs are unique;
 * every link reads the same from both ends. */
#include <string.h>

#include "models/params.h"
#include "sim/input.h"
#include "topologies/error.h"
#include "topologies/import_internal.h"

typedef struct {
  char *id;   /* "S-0008f10400410015" */
  char *desc; /* node description */
  char *host, *adapter; /* of an adapter whose description names its host
                           ("node01 mlx5_0"), else NULL */
  gboolean sw;
  guint32 nports, line;
  GArray *ports; /* IbPort, in the order listed */
} IbNode;

typedef struct {
  guint32 local;
  char *peer;
  guint32 peer_port;
  guint32 width;
  char speed[8];
  guint32 line;
} IbPort;

/* The most ports a node has (NodeInfo NumPorts is 8 bits). */
#define IB_MAX_PORTS 255

static void ib_node_free(gpointer p)
{
  IbNode *n = p;
  for (guint i = 0; i < n->ports->len; i++)
    g_free(g_array_index(n->ports, IbPort, i).peer);
  g_array_free(n->ports, TRUE);
  g_free(n->id);
  g_free(n->desc);
  g_free(n->host);
  g_free(n->adapter);
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

/* Hex digits at *p (at most 16), advancing past them. */
static gboolean hex_digits(const char **p)
{
  const char *a = *p;

  while (g_ascii_isxdigit(**p))
    (*p)++;
  return *p > a && *p - a <= 16;
}

/* "[N]" at *p with N in [1, IB_MAX_PORTS], then an optional "[ext N]". */
static gboolean port_number(const char **p, guint32 *port)
{
  guint64 v;
  const char *q = *p + 1, *end;
  g_autofree char *num = NULL;

  if (**p != '[' || !(end = strchr(q, ']')))
    return FALSE;
  num = g_strndup(q, (gsize)(end - q));
  if (!g_ascii_string_to_unsigned(num, 10, 1, IB_MAX_PORTS, &v, NULL))
    return FALSE;
  *port = (guint32)v;
  *p = end + 1;
  if (g_str_has_prefix(*p, "[ext ") && (end = strchr(*p, ']')))
    *p = end + 1;
  return TRUE;
}

/* "(GUID)" at *p, if there, copied to *guid. */
static gboolean port_guid(const char **p, char **guid)
{
  const char *a = *p + 1;

  *guid = NULL;
  if (**p != '(')
    return TRUE;
  *p = a;
  if (!hex_digits(p) || **p != ')')
    return FALSE;
  *guid = g_strndup(a, (gsize)(*p - a));
  (*p)++;
  return TRUE;
}

/* "S-0008f10400410015": S, H or R (switch, adapter, router), hex GUID */
static gboolean is_node_id(const char *id, char type)
{
  const char *p = id;

  return *p++ == type && *p++ == '-' && hex_digits(&p) && !*p;
}

/* KEY=0xHEX[(HEX)] [# comment], the lines before a node line. */
static gboolean key_line(const char *l, const char *source, guint line,
                         GError **error)
{
  static const char *const keys[] = {"vendid",     "devid",  "sysimgguid",
                                     "switchguid", "caguid", "rtguid"};
  const char *eq = strchr(l, '='), *p = eq + 1;
  g_autofree char *key = g_strndup(l, (gsize)(eq - l));
  g_autofree char *x = topo_import_excerpt(l);
  guint k;

  for (k = 0; k < G_N_ELEMENTS(keys) && strcmp(key, keys[k]); k++)
    ;
  if (k == G_N_ELEMENTS(keys)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: unknown key in '%s' (expected vendid, devid, "
                "sysimgguid, switchguid, caguid or rtguid)",
                source, line, x);
    return FALSE;
  }
  if (g_str_has_prefix(p, "0x") && (p += 2, hex_digits(&p))) {
    if (*p == '(') {
      p++;
      if (!hex_digits(&p) || *p++ != ')')
        p = "?";
    }
    p += strspn(p, " \t");
    if (!*p || *p == '#')
      return TRUE;
  }
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
              "%s:%u: '%s' (expected %s=0xHEX)", source, line, x, key);
  return FALSE;
}

/* "Switch|Ca|Rt NPORTS "ID" [# "DESCRIPTION" ...]" */
static IbNode *node_line(const char *l, const char *source, guint line,
                         GHashTable *ids, GError **error)
{
  const char *p = l + strcspn(l, " \t");
  g_autofree char *x = topo_import_excerpt(l);
  g_autofree char *num = NULL, *id = NULL;
  char type = l[0] == 'C' ? 'H' : l[0] == 'R' ? 'R' : 'S';
  IbNode *n;
  guint64 np;
  gpointer first;

  p += strspn(p, " \t");
  num = g_strndup(p, strcspn(p, " \t"));
  if (!g_ascii_string_to_unsigned(num, 10, 1, IB_MAX_PORTS, &np, NULL)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: '%s' is not NODETYPE NPORTS \"ID\" (NPORTS from 1 to "
                "%u)",
                source, line, x, IB_MAX_PORTS);
    return NULL;
  }
  p += strlen(num);
  p += strspn(p, " \t");
  if (*p != '"' || !(id = quoted(&p))) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: node line without a quoted \"ID\" in '%s'", source,
                line, x);
    return NULL;
  }
  if (!is_node_id(id, type)) {
    g_autofree char *xi = topo_import_excerpt(id);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: \"%s\" is not the ID of a%s (expected \"%c-\" and "
                "its GUID in hex)",
                source, line, xi,
                type == 'S'   ? " Switch"
                : type == 'H' ? " Ca"
                              : "n Rt",
                type);
    return NULL;
  }
  if ((first = g_hash_table_lookup(ids, id))) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s:%u: a second node \"%s\" (the first is on line %u)", source,
                line, id, ((IbNode *)first)->line);
    return NULL;
  }
  p += strspn(p, " \t");
  if (*p && *p != '#') {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: '%s' after the ID (expected # \"DESCRIPTION\")", source,
                line, x);
    return NULL;
  }
  n = g_new0(IbNode, 1);
  n->sw = type != 'H';
  n->nports = (guint32)np;
  n->line = line;
  n->ports = g_array_new(FALSE, FALSE, sizeof(IbPort));
  n->id = g_steal_pointer(&id);
  n->desc = *p ? quoted(&p) : NULL;
  if (!n->desc)
    n->desc = g_strdup(n->id);
  g_hash_table_insert(ids, n->id, n);
  return n;
}

/* "[LOCAL][ext N](GUID) "PEER"[PORT][ext N](GUID) # ... WIDTHxSPEED" */
static gboolean port_line(const char *l, IbNode *cur, const char *source,
                          guint line, GHashTable *guids, GError **error)
{
  IbPort port = {.line = line};
  const char *p = l;
  g_autofree char *x = topo_import_excerpt(l);
  g_autofree char *guid = NULL, *peer_guid = NULL;
  const char *what = NULL;
  gpointer first;

  if (!port_number(&p, &port.local)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: '%s' does not start with [PORT] (a port from 1 to %u)",
                source, line, x, IB_MAX_PORTS);
    return FALSE;
  }
  if (!cur) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: a port line before any Switch, Ca or Rt line", source,
                line);
    return FALSE;
  }
  if (port.local > cur->nports) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s:%u: port %u of \"%s\", which has %u ports (line %u)",
                source, line, port.local, cur->id, cur->nports, cur->line);
    return FALSE;
  }
  for (guint i = 0; i < cur->ports->len; i++) {
    const IbPort *o = &g_array_index(cur->ports, IbPort, i);
    if (o->local == port.local) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s:%u: port %u of \"%s\" is listed twice (the first on "
                  "line %u)",
                  source, line, port.local, cur->id, o->line);
      return FALSE;
    }
  }
  if (!port_guid(&p, &guid))
    what = "(GUID) in hex after [PORT]";
  else if ((p += strspn(p, " \t"), *p != '"') || !(port.peer = quoted(&p)) ||
           !port_number(&p, &port.peer_port))
    what = "\"PEER\"[PORT] (a port from 1 to 255)";
  else if (!port.peer[0] || !strchr("SHR", port.peer[0]) ||
           !is_node_id(port.peer, port.peer[0]))
    what = "a PEER of S-, H- or R- and its GUID in hex";
  else if ((p += strspn(p, " \t"), !port_guid(&p, &peer_guid)))
    what = "(GUID) in hex after \"PEER\"[PORT]";
  else if ((p += strspn(p, " \t"), *p && *p != '#'))
    what = "# and a comment after \"PEER\"[PORT]";
  else if (!width_speed(p, &port.width, port.speed))
    what = "WIDTHxSPEED (such as 4xNDR) at the end";
  if (what) {
    g_free(port.peer);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s:%u: expected %s in '%s'", source, line, what, x);
    return FALSE;
  }
  if (guid && (first = g_hash_table_lookup(guids, guid))) {
    g_free(port.peer);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s:%u: port GUID %s is also on line %u", source, line, guid,
                GPOINTER_TO_UINT(first));
    return FALSE;
  }
  if (guid)
    g_hash_table_insert(guids, g_steal_pointer(&guid), GUINT_TO_POINTER(line));
  g_array_append_val(cur->ports, port);
  return TRUE;
}

/* The "lid N" and "lmc N" of a node or port line's comment (after the
 * quoted names): a unicast LID is 0 (not yet assigned) to 0xBFFF
 * (IBTA 4.1.3), an LMC 0 to 7.  ifsim routes by the graph, not by LIDs,
 * but a value outside these is not ibnetdiscover's. */
static gboolean lids_ok(const char *l, const char *source, guint line,
                        GError **error)
{
  const char *hash = NULL;
  gboolean quoted = FALSE;
  g_auto(GStrv) tok = NULL;

  for (const char *p = l; *p && !hash; p++) {
    if (*p == '"')
      quoted = !quoted;
    else if (*p == '#' && !quoted)
      hash = p;
  }
  if (!hash)
    return TRUE;
  /* the words outside the comment's quoted names */
  {
    g_autoptr(GString) plain = g_string_new(NULL);
    quoted = FALSE;
    for (const char *p = hash + 1; *p; p++) {
      if (*p == '"')
        quoted = !quoted;
      else if (!quoted)
        g_string_append_c(plain, *p);
    }
    tok = mdl_split_words(plain->str);
  }
  for (guint i = 0; tok[i] && tok[i + 1]; i++) {
    gboolean lid = g_str_equal(tok[i], "lid"), lmc = g_str_equal(tok[i], "lmc");
    guint64 v;

    if ((lid || lmc) && !g_ascii_string_to_unsigned(
                            tok[i + 1], 10, 0, lid ? 0xBFFF : 7, &v, NULL)) {
      g_autofree char *x = g_strndup(tok[i + 1], 24);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: %s %s: expected %s", source, line, tok[i], x,
                  lid ? "a LID from 0 to 49151 (0xBFFF)"
                      : "an LMC from 0 to 7");
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean parse(const char *text, const char *source, GPtrArray *nodes,
                      GHashTable *ids, GError **error)
{
  g_autofree char **lines =
      sim_input_lines(text, strlen(text), source, NULL, error);
  g_autoptr(GHashTable) guids =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  IbNode *cur = NULL;

  if (!lines)
    return FALSE;
  for (guint li = 0; lines[li]; li++) {
    char *l = g_strstrip(lines[li]);
    g_autofree char *word = g_strndup(l, strcspn(l, " \t"));
    const char *eq = strchr(l, '=');
    if (!*l || *l == '#' || g_str_has_prefix(l, "Chassis ") ||
        strcmp(l, "Non-Chassis Nodes") == 0 ||
        g_str_has_prefix(l, "Hostname: "))
      continue; /* blank, comment, -g grouping */
    if (eq && (gsize)(eq - l) == strspn(l, "abcdefghijklmnopqrstuvwxyz")) {
      if (!key_line(l, source, li + 1, error))
        return FALSE;
    } else if (!strcmp(word, "Switch") || !strcmp(word, "Ca") ||
               !strcmp(word, "Rt")) {
      if (!lids_ok(l, source, li + 1, error) ||
          !(cur = node_line(l, source, li + 1, ids, error)))
        return FALSE;
      g_ptr_array_add(nodes, cur);
    } else if (*l == '[') {
      if (!lids_ok(l, source, li + 1, error) ||
          !port_line(l, cur, source, li + 1, guids, error))
        return FALSE;
    } else {
      g_autofree char *x = topo_import_excerpt(l);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: unknown line '%s' (expected KEY=0xHEX, "
                  "Switch|Ca|Rt NPORTS \"ID\", [PORT] \"PEER\"[PORT] or "
                  "# comment)",
                  source, li + 1, x);
      return FALSE;
    }
  }
  return TRUE;
}

/* Every link reads the same from both ends: A[p] -> B[q] and B[q] -> A[p],
 * with one width and speed. */
static gboolean check_links(GPtrArray *nodes, GHashTable *ids,
                            const char *source, GError **error)
{
  for (guint i = 0; i < nodes->len; i++) {
    const IbNode *a = nodes->pdata[i];
    for (guint j = 0; j < a->ports->len; j++) {
      const IbPort *p = &g_array_index(a->ports, IbPort, j);
      const IbNode *b = g_hash_table_lookup(ids, p->peer);
      const IbPort *q = NULL;
      if (!b || b == a) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    b ? "%s:%u: port %u of \"%s\" leads to its own node"
                      : "%s:%u: port %u of \"%s\" leads to \"%s\", which is "
                        "not listed (truncated dump?)",
                    source, p->line, p->local, a->id, p->peer);
        return FALSE;
      }
      for (guint k = 0; k < b->ports->len && !q; k++) {
        if (g_array_index(b->ports, IbPort, k).local == p->peer_port)
          q = &g_array_index(b->ports, IbPort, k);
      }
      if (!q || strcmp(q->peer, a->id) || q->peer_port != p->local) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%u: \"%s\"[%u] leads to \"%s\"[%u], but %s (expected "
                    "each link listed from both ends)",
                    source, p->line, a->id, p->local, b->id, p->peer_port,
                    q ? "that port leads elsewhere"
                      : "that port is not listed");
        return FALSE;
      }
      if (q->width != p->width || g_ascii_strcasecmp(q->speed, p->speed)) {
        g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                    "%s:%u: \"%s\"[%u] is %ux%s here but %ux%s on line %u",
                    source, p->line, a->id, p->local, p->width, p->speed,
                    q->width, q->speed, q->line);
        return FALSE;
      }
    }
  }
  return TRUE;
}

static IbNode *find(GHashTable *ids, const char *id)
{
  return g_hash_table_lookup(ids, id);
}

/* An adapter's host and adapter names, when its description names them:
 * "node01 mlx5_0" (the host name first, as the kernel's node description
 * is set by rdma-ndd), else both NULL (the firmware's default, such as
 * "MT4129 ConnectX7   Mellanox Technologies"). */
static void name_adapter(IbNode *n)
{
  g_auto(GStrv) w = g_strsplit(n->desc, " ", 3);
  if (w[0] && w[1] &&
      (g_str_has_prefix(w[1], "mlx") || g_str_has_prefix(w[1], "hfi") ||
       g_str_has_prefix(w[1], "HCA") || g_str_has_prefix(w[1], "ibp"))) {
    n->host = g_strdup(w[0]);
    n->adapter = g_strdup(w[1]);
  }
}

/* A SHARP Aggregation Node: the adapter inside a Quantum switch that
 * runs its in-network reductions, described by the switch firmware as
 * "Mellanox Technologies Aggregation Node" (on port 65 of a Quantum-2).
 * It is no host's. */
static gboolean is_aggregation_node(const IbNode *n)
{
  return !n->sw && strstr(n->desc, "Aggregation Node") != NULL;
}

/* Names in natural order: digit runs compare as numbers (HCA-2 before
 * HCA-10, mlx5_4 before mlx5_10). */
static int natural_cmp(const char *a, const char *b)
{
  while (*a && *b) {
    if (g_ascii_isdigit(*a) && g_ascii_isdigit(*b)) {
      char *ea, *eb;
      guint64 x = g_ascii_strtoull(a, &ea, 10),
              y = g_ascii_strtoull(b, &eb, 10);
      if (x != y)
        return x < y ? -1 : 1;
      a = ea;
      b = eb;
    } else if (*a != *b) {
      return (guchar)*a - (guchar)*b;
    } else {
      a++;
      b++;
    }
  }
  return (guchar)*a - (guchar)*b;
}

/* A host's adapters by adapter name (nameless ones by ID), so that
 * adapter c is the same rail on every host whatever order the dump
 * listed them in. */
static gint adapter_order(gconstpointer pa, gconstpointer pb)
{
  const IbNode *a = *(IbNode *const *)pa, *b = *(IbNode *const *)pb;
  int c = natural_cmp(a->adapter ? a->adapter : a->id,
                      b->adapter ? b->adapter : b->id);
  return c ? c : strcmp(a->id, b->id);
}

/* The layout of a host: its adapter count and their connected ports
 * (0: adapters with different counts; each has at least one). */
typedef struct {
  guint32 cas, ports, hosts, first; /* hosts of this layout, the first */
} HostLayout;

static HostLayout host_layout(GPtrArray *cas)
{
  HostLayout l = {.cas = cas->len};
  for (guint c = 0; c < cas->len; c++) {
    guint32 p = ((IbNode *)cas->pdata[c])->ports->len;
    l.ports = c == 0 || p == l.ports ? p : 0;
    if (!l.ports)
      break;
  }
  return l;
}

/* Adapters grouped into hosts (hosts: names; host_cas: each one's
 * adapters, in adapter order), keeping what ifsim can describe and
 * saying in set_aside (comment lines) what it set aside: SHARP
 * Aggregation Nodes; adapters whose description names no host when
 * others do (each is a host of its own when none does); hosts whose
 * layout (adapters and their ports) differs from the most common one,
 * as hosts with an adapter or a port down are in a real fabric.  Two
 * layouts equally common are an error: which is the fabric's is not
 * known. */
static gboolean group_hosts(GPtrArray *nodes, const char *source,
                            GPtrArray *hosts, GPtrArray *host_cas,
                            GString *set_aside, guint32 *max_ports,
                            GError **error)
{
  g_autoptr(GHashTable) host_index =
      g_hash_table_new(g_str_hash, g_str_equal); /* name -> index + 1 */
  g_autoptr(GPtrArray) all_hosts = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) all_cas =
      g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  g_autoptr(GArray) layouts = g_array_new(FALSE, FALSE, sizeof(HostLayout));
  g_autoptr(GString) unlike = g_string_new(NULL);
  g_autofree guint32 *layout_of = NULL; /* each host's index in layouts */
  guint32 aggregation = 0, nameless = 0, named = 0, unlike_hosts = 0;
  const IbNode *nameless_first = NULL;
  const HostLayout *keep = NULL;

  for (guint i = 0; i < nodes->len; i++) {
    IbNode *n = nodes->pdata[i];
    if (n->sw) {
      *max_ports = MAX(*max_ports, n->nports);
    } else if (!is_aggregation_node(n)) {
      name_adapter(n);
      named += n->host != NULL;
    }
  }
  /* servers: adapters grouped by host name (a hash of the names seen:
   * 150,000 hosts were a quadratic search) */
  for (guint i = 0; i < nodes->len; i++) {
    IbNode *n = nodes->pdata[i];
    const char *h = n->host ? n->host : n->id;
    guint k;
    if (n->sw)
      continue;
    if (is_aggregation_node(n)) {
      aggregation++;
      continue;
    }
    if (n->ports->len == 0) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                  "%s:%u: adapter %s has no connected port (expected a "
                  "[PORT] line after it)",
                  source, n->line, n->id);
      return FALSE;
    }
    if (named && !n->host) {
      if (nameless++ == 0)
        nameless_first = n;
      continue;
    }
    k = GPOINTER_TO_UINT(g_hash_table_lookup(host_index, h));
    if (k == 0) {
      g_ptr_array_add(all_hosts, g_strdup(h));
      g_ptr_array_add(all_cas, g_ptr_array_new());
      k = all_hosts->len;
      g_hash_table_insert(host_index, all_hosts->pdata[k - 1],
                          GUINT_TO_POINTER(k));
    }
    g_ptr_array_add(all_cas->pdata[k - 1], n);
  }
  if (all_hosts->len == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_SYNTAX,
                "%s: no Ca (host channel adapter) node%s", source,
                aggregation ? " but SHARP Aggregation Nodes (no host's)" : "");
    return FALSE;
  }
  /* the layouts, and how many hosts have each */
  layout_of = g_new(guint32, all_hosts->len);
  for (guint k = 0; k < all_hosts->len; k++) {
    HostLayout l;
    guint j;
    g_ptr_array_sort(all_cas->pdata[k], adapter_order);
    l = host_layout(all_cas->pdata[k]);
    for (j = 0; j < layouts->len; j++) {
      HostLayout *o = &g_array_index(layouts, HostLayout, j);
      if (o->cas == l.cas && o->ports == l.ports) {
        o->hosts++;
        break;
      }
    }
    if (j == layouts->len) {
      l.hosts = 1;
      l.first = k;
      g_array_append_val(layouts, l);
    }
    layout_of[k] = j;
  }
  for (guint j = 0; j < layouts->len; j++) {
    const HostLayout *l = &g_array_index(layouts, HostLayout, j);
    if (!keep || l->hosts > keep->hosts)
      keep = l;
  }
  for (guint j = 0; j < layouts->len; j++) {
    const HostLayout *l = &g_array_index(layouts, HostLayout, j);
    if (l != keep && l->hosts == keep->hosts) {
      const IbNode *a = ((GPtrArray *)all_cas->pdata[keep->first])->pdata[0];
      const IbNode *b = ((GPtrArray *)all_cas->pdata[l->first])->pdata[0];
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                  "%s:%u: host %s has %u adapters, host %s (line %u) %u, and "
                  "%u host(s) are laid out like each: ifsim servers are "
                  "alike, and which is the fabric's is not known",
                  source, b->line, (char *)all_hosts->pdata[l->first], l->cas,
                  (char *)all_hosts->pdata[keep->first], a->line, keep->cas,
                  l->hosts);
      return FALSE;
    }
  }
  if (keep->ports == 0) {
    GPtrArray *cas = all_cas->pdata[keep->first];
    const IbNode *a = cas->pdata[0], *b = NULL;
    for (guint c = 1; c < cas->len && !b; c++) {
      if (((IbNode *)cas->pdata[c])->ports->len != a->ports->len)
        b = cas->pdata[c];
    }
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                "%s:%u: adapter %s has %u connected ports, adapter %s of the "
                "same host %u (expected alike adapters)",
                source, b->line, b->id, b->ports->len, a->id, a->ports->len);
    return FALSE;
  }
  for (guint k = 0; k < all_hosts->len; k++) {
    const HostLayout *l = &g_array_index(layouts, HostLayout, layout_of[k]);
    if (l == keep) {
      g_ptr_array_add(hosts, g_strdup(all_hosts->pdata[k]));
      g_ptr_array_add(host_cas, g_ptr_array_ref(all_cas->pdata[k]));
    } else if (unlike_hosts++ < 8) {
      g_string_append_printf(unlike, "%s%s (%u adapter(s)",
                             unlike->len ? ", " : "",
                             (char *)all_hosts->pdata[k], l->cas);
      if (l->ports != keep->ports && l->ports)
        g_string_append_printf(unlike, " of %u port(s)", l->ports);
      else if (l->ports != keep->ports)
        g_string_append(unlike, " with unlike ports");
      g_string_append_c(unlike, ')');
    }
  }
  if (unlike_hosts > 8)
    g_string_append_printf(unlike, " and %u more", unlike_hosts - 8);
  if (aggregation)
    g_string_append_printf(
        set_aside,
        "# %u SHARP Aggregation Node(s), the switches' own: in-network "
        "reduction is the switch model's (reduction = sharp)\n",
        aggregation);
  if (nameless)
    g_string_append_printf(
        set_aside,
        "# %u adapter(s) whose description names no host (\"%s\", line "
        "%u; rdma-ndd sets \"HOST mlx5_0\"): not placed in a server\n",
        nameless, nameless_first->desc, nameless_first->line);
  if (unlike_hosts)
    g_string_append_printf(set_aside,
                           "# %u host(s) unlike the %u kept (%u adapter(s) of "
                           "%u connected port(s); an adapter or port down): "
                           "%s\n",
                           unlike_hosts, keep->hosts, keep->cas, keep->ports,
                           unlike->str);
  return TRUE;
}

static gboolean link_model(const IbPort *p, char out[32], const char *source,
                           GError **error)
{
  g_autofree char *speed = g_ascii_strdown(p->speed, -1);

  if ((strcmp(speed, "edr") && strcmp(speed, "hdr") && strcmp(speed, "ndr") &&
       strcmp(speed, "xdr")) ||
      (p->width != 1 && p->width != 2 && p->width != 4)) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_VALUE,
                "%s:%u: %ux%s links are not modelled (EDR, HDR, NDR or XDR at "
                "1x, 2x or 4x)",
                source, p->line, p->width, p->speed);
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
                        const TopoImportOptions *opt, GError **error)
{
  g_autoptr(GPtrArray) nodes = g_ptr_array_new_with_free_func(ib_node_free);
  g_autoptr(GHashTable) ids = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) host_cas =
      g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  g_autoptr(GString) out = g_string_new(NULL);
  g_autoptr(GString) sws = g_string_new(NULL);
  g_autoptr(GString) links = g_string_new(NULL);
  g_autoptr(GString) attach = g_string_new(NULL);
  g_autoptr(GString) set_aside = g_string_new(NULL);
  g_autofree char *text0 = g_strndup(text, len);
  char net_link[32] = "", ca_link[32] = "";
  guint32 max_ports = 0, cas_per_host = 0, ca_ports = 0;
  const char *sw_base = "quantum-hdr";

  if (!parse(text0, source, nodes, ids, error) ||
      !check_links(nodes, ids, source, error))
    return NULL;
  if (!group_hosts(nodes, source, hosts, host_cas, set_aside, &max_ports,
                   error))
    return NULL;
  for (guint k = 0; k < hosts->len; k++) {
    GPtrArray *cas = host_cas->pdata[k];
    cas_per_host = cas->len;
    for (guint c = 0; c < cas->len; c++) {
      IbNode *ca = cas->pdata[c];
      ca_ports = ca->ports->len;
      for (guint p = 0; p < ca->ports->len; p++) {
        const IbPort *port = &g_array_index(ca->ports, IbPort, p);
        IbNode *peer = find(ids, port->peer);
        g_autofree char *peer_name = NULL;
        if (!peer || !peer->sw) {
          g_set_error(error, TOPO_ERROR, TOPO_ERROR_CONFLICT,
                      "%s:%u: adapter %s port %u leads to %s, not a listed "
                      "switch",
                      source, port->line, ca->id, port->local, port->peer);
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
      IbNode *peer = find(ids, port->peer);
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

  g_autofree char *base = g_path_get_basename(source);

  g_string_append_printf(
      out,
      "# Imported from %s (ibnetdiscover) by ifsim topo --import.\n"
      "# %u hosts of %u adapters with %u connected port(s) each.\n"
      "# Switches: %s with %u ports; adapters: %s ports.\n",
      base, hosts->len, cas_per_host, ca_ports, sw_base, max_ports, ca_link);
  {
    const IbNode *first = ((GPtrArray *)host_cas->pdata[0])->pdata[0];
    if (!opt->server || !first->host)
      g_string_append(out, "# What the dump does not say is assumed:\n");
    if (!opt->server)
      g_string_append(out, "# one GPU per adapter, on one CPU socket "
                           "(--import-server NAME gives a server template)\n");
    if (!first->host)
      g_string_append(out, "# each adapter is a host: no adapter's "
                           "description names its host (rdma-ndd sets "
                           "\"HOST mlx5_0\")\n");
  }
  if (set_aside->len)
    g_string_append_printf(out, "# Set aside from the dump:\n%s",
                           set_aside->str);
  g_string_append_c(out, '\n');
  g_string_append_printf(out, "[system]\ndescription = Imported from %s\n",
                         base);
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
        hosts->len, base, cas_per_host, cas_per_host,
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
