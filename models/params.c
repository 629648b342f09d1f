/* Typed parameters read from GKeyFile groups; see models/params.h. */
#include "models/params.h"

#include <math.h>
#include <string.h>

#include "sim/units.h"

GQuark mdl_error_quark(void)
{
  return g_quark_from_static_string("ifsim-models-error-quark");
}

static const char *skip_blanks(const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

/* A line of an INI file, from s to its last non-blank: "[GROUP]",
 * "KEY = VALUE" (after a group) or a comment, said with its line where
 * GLib's message would not give one. */
static gboolean ini_line_ok(const char *s, const char *last, gboolean grouped,
                            const char *file, guint line, GError **error)
{
  g_autofree char *text = g_strndup(s, (size_t)(last - s));
  g_autofree char *shown = NULL;

  if (strlen(text) > 60)
    text[60] = '\0';
  shown = g_strdup(text);
  if (*s == '[') {
    if (last[-1] != ']' || last - s < 3) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_SYNTAX,
                  "%s:%u: '%s': expected a group header, [NAME]", file, line,
                  shown);
      return FALSE;
    }
    return TRUE;
  }
  {
    const char *eq = memchr(s, '=', (size_t)(last - s));

    if (!eq) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_SYNTAX,
                  "%s:%u: '%s' is not KEY = VALUE, a [GROUP] or a # comment",
                  file, line, shown);
      return FALSE;
    }
    if (eq == s) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_SYNTAX,
                  "%s:%u: '%s': a value without its key (expected KEY = "
                  "VALUE)",
                  file, line, shown);
      return FALSE;
    }
  }
  if (!grouped) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_SYNTAX,
                "%s:%u: '%s' comes before any [GROUP] (expected a group "
                "header first, such as [system])",
                file, line, shown);
    return FALSE;
  }
  return TRUE;
}

gboolean mdl_ini_check_duplicates(const char *data, gsize len, const char *file,
                                  GError **error)
{
  g_autoptr(GHashTable) groups =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) keys =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *group = NULL;
  const char *p = data, *end = data + len;

  for (guint line = 1; p < end; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *stop = eol ? eol : end;
    const char *s = skip_blanks(p, stop);

    const char *last = stop;

    /* the line's text without its blanks and '\r' at the end */
    while (last > s &&
           (last[-1] == ' ' || last[-1] == '\t' || last[-1] == '\r'))
      last--;
    if (s < last && *s != '#' &&
        !ini_line_ok(s, last, group != NULL, file, line, error))
      return FALSE;
    if (s < stop && *s == '[') {
      const char *close = memchr(s, ']', (size_t)(stop - s));
      if (close) {
        g_free(group);
        group = g_strndup(s + 1, (size_t)(close - s - 1));
        if (g_hash_table_contains(groups, group)) {
          g_set_error(error, MDL_ERROR, MDL_ERROR_DUPLICATE,
                      "%s:%u: [%s] is given twice (first at line %u)", file,
                      line, group,
                      GPOINTER_TO_UINT(g_hash_table_lookup(groups, group)));
          return FALSE;
        }
        g_hash_table_insert(groups, g_strdup(group), GUINT_TO_POINTER(line));
        g_hash_table_remove_all(keys);
      }
    } else if (s < stop && *s != '#' && group) {
      const char *eq = memchr(s, '=', (size_t)(stop - s));
      if (eq) {
        const char *k_end = eq;
        g_autofree char *key = NULL;
        while (k_end > s && (k_end[-1] == ' ' || k_end[-1] == '\t'))
          k_end--;
        key = g_strndup(s, (size_t)(k_end - s));
        /* GKeyFile drops "KEY[LOCALE] = ..." of other locales at load:
         * a value silently lost, so refused here */
        if (strchr(key, '[')) {
          g_set_error(error, MDL_ERROR, MDL_ERROR_SYNTAX,
                      "%s:%u: [%s] %s: a translated key (KEY[LOCALE]) is "
                      "not read: expected KEY = VALUE",
                      file, line, group, key);
          return FALSE;
        }
        if (g_hash_table_contains(keys, key)) {
          g_set_error(error, MDL_ERROR, MDL_ERROR_DUPLICATE,
                      "%s:%u: [%s] %s is given twice (first at line %u)", file,
                      line, group, key,
                      GPOINTER_TO_UINT(g_hash_table_lookup(keys, key)));
          return FALSE;
        }
        g_hash_table_insert(keys, g_steal_pointer(&key),
                            GUINT_TO_POINTER(line));
      }
    }
    p = eol ? eol + 1 : end;
  }
  return TRUE;
}

GKeyFile *mdl_ini_load(const char *data, gsize len, const char *file,
                       GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_autoptr(GError) local = NULL;

  if (!g_utf8_validate(data, (gssize)len, NULL) || memchr(data, '\0', len)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_SYNTAX,
                "%s: not a text file (invalid UTF-8 or a NUL byte)", file);
    return NULL;
  }
  /* a UTF-8 byte order mark (editors on Windows write one): skipped, as
   * the CSV readers skip it */
  if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
    data += 3;
    len -= 3;
  }
  if (!mdl_ini_check_duplicates(data, len, file, error))
    return NULL;
  if (!g_key_file_load_from_data(kf, data, len, G_KEY_FILE_NONE, &local)) {
    g_set_error(error, MDL_ERROR, MDL_ERROR_SYNTAX, "%s: %s", file,
                local->message);
    return NULL;
  }
  return g_steal_pointer(&kf);
}

static void *field(void *model, const MdlParamSpec *spec)
{
  return (char *)model + spec->offset;
}

static const void *cfield(const void *model, const MdlParamSpec *spec)
{
  return (const char *)model + spec->offset;
}

/* A count whose default 0 means "not set" (the model derives it): a user
 * may leave it out, never write 0 (credit_buffer_bytes = 0 is no buffer at
 * all, not the derived one). */
static gboolean param_zero_is_unset(const MdlParamSpec *spec)
{
  return spec->type == MDL_PARAM_UINT && spec->min >= 1 && spec->fallback &&
         strcmp(spec->fallback, "0") == 0;
}

static gboolean param_range_error(const MdlParamSpec *spec, const char *text,
                                  const char *where, GError **error)
{
  g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
              "%s %s: %s is outside [%.15g, %.15g] (%s)", where, spec->key,
              text, spec->min, spec->max, spec->help);
  return FALSE;
}

gboolean mdl_param_set(const MdlParamSpec *spec, void *model, const char *text,
                       const char *where, GError **error)
{
  switch (spec->type) {
  case MDL_PARAM_DOUBLE: {
    double v = 0;

    if (g_ascii_isspace(*text) || !sim_decimal_parse(text, &v)) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "%s %s: '%s' is not a number (%s)", where, spec->key, text,
                  spec->help);
      return FALSE;
    }
    if (v < spec->min || v > spec->max)
      return param_range_error(spec, text, where, error);
    *(double *)field(model, spec) = v;
    return TRUE;
  }
  case MDL_PARAM_UINT: {
    guint64 v = 0;
    if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32, &v, NULL)) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "%s %s: '%s' is not a whole number (%s)", where, spec->key,
                  text, spec->help);
      return FALSE;
    }
    if (v == 0 && param_zero_is_unset(spec)) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                  "%s %s: 0 is not a value it takes (from %.15g to %.15g: %s); "
                  "leave the key out for the value derived without it",
                  where, spec->key, spec->min, spec->max, spec->help);
      return FALSE;
    }
    if ((double)v < spec->min || (double)v > spec->max)
      return param_range_error(spec, text, where, error);
    *(guint32 *)field(model, spec) = (guint32)v;
    return TRUE;
  }
  case MDL_PARAM_BOOL:
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0) {
      *(gboolean *)field(model, spec) = TRUE;
      return TRUE;
    }
    if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0) {
      *(gboolean *)field(model, spec) = FALSE;
      return TRUE;
    }
    g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                "%s %s: '%s' is not true or false", where, spec->key, text);
    return FALSE;
  case MDL_PARAM_ENUM: {
    g_autofree char *choices = NULL;
    for (guint i = 0; spec->choices[i]; i++) {
      if (g_ascii_strcasecmp(text, spec->choices[i]) == 0) {
        *(guint32 *)field(model, spec) = i;
        return TRUE;
      }
    }
    choices = g_strjoinv(", ", (char **)spec->choices);
    g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE,
                "%s %s: '%s' is not one of %s", where, spec->key, text,
                choices);
    return FALSE;
  }
  case MDL_PARAM_STRING: {
    char **slot = field(model, spec);
    if (*text == '\0') {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE, "%s %s: is empty (%s)",
                  where, spec->key, spec->help);
      return FALSE;
    }
    g_free(*slot);
    *slot = g_strdup(text);
    return TRUE;
  }
  }
  g_assert_not_reached();
  return FALSE;
}

char *mdl_param_format(const MdlParamSpec *spec, const void *model)
{
  switch (spec->type) {
  case MDL_PARAM_DOUBLE: {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.10g",
                                    *(const double *)cfield(model, spec)));
  }
  case MDL_PARAM_UINT:
    return g_strdup_printf("%u", *(const guint32 *)cfield(model, spec));
  case MDL_PARAM_BOOL:
    return g_strdup(*(const gboolean *)cfield(model, spec) ? "true" : "false");
  case MDL_PARAM_ENUM:
    return g_strdup(spec->choices[*(const guint32 *)cfield(model, spec)]);
  case MDL_PARAM_STRING: {
    const char *s = *(char *const *)cfield(model, spec);
    return g_strdup(s ? s : "");
  }
  }
  g_assert_not_reached();
  return NULL;
}

GStrv mdl_split_words(const char *text)
{
  g_auto(GStrv) raw = g_strsplit_set(text, " \t", -1);
  GPtrArray *out = g_ptr_array_new();

  for (guint i = 0; raw[i]; i++) {
    if (*raw[i])
      g_ptr_array_add(out, g_strdup(raw[i]));
  }
  g_ptr_array_add(out, NULL);
  return (GStrv)g_ptr_array_free(out, FALSE);
}

const MdlParamSpec *mdl_param_find(const MdlParamSpec *const *tables,
                                   const char *key)
{
  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++) {
      if (strcmp(s->key, key) == 0)
        return s;
    }
  }
  return NULL;
}

char *mdl_param_list_keys(const MdlParamSpec *const *tables)
{
  GString *out = g_string_new(NULL);

  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++)
      g_string_append_printf(out, "%s%s", out->len ? ", " : "", s->key);
  }
  return g_string_free(out, FALSE);
}

/* Levenshtein distance, capped: returns cap + 1 once it is exceeded. */
static guint edit_distance(const char *a, const char *b, guint cap)
{
  size_t la = strlen(a), lb = strlen(b);
  g_autofree guint *row = NULL;

  if ((la > lb ? la - lb : lb - la) > cap)
    return cap + 1;
  row = g_new(guint, lb + 1);
  for (size_t j = 0; j <= lb; j++)
    row[j] = (guint)j;
  for (size_t i = 1; i <= la; i++) {
    guint diag = row[0];
    row[0] = (guint)i;
    for (size_t j = 1; j <= lb; j++) {
      guint up = row[j];
      guint best = MIN(row[j] + 1, row[j - 1] + 1);
      row[j] = MIN(best, diag + (a[i - 1] != b[j - 1]));
      diag = up;
    }
  }
  return row[lb];
}

const char *mdl_param_suggest(const MdlParamSpec *const *tables,
                              const char *key)
{
  const char *best = NULL;
  guint best_d = 3;

  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++) {
      guint d = edit_distance(key, s->key, 2);
      if (d < best_d) {
        best_d = d;
        best = s->key;
      }
    }
  }
  return best;
}

void *mdl_model_dup(const void *model, gsize size,
                    const MdlParamSpec *const *tables)
{
  void *c = g_memdup2(model, size);
  char **name = c;

  *name = g_strdup(*name);
  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++) {
      if (s->type == MDL_PARAM_STRING) {
        char **slot = field(c, s);
        *slot = g_strdup(*slot);
      }
    }
  }
  return c;
}

void mdl_model_free(void *model, const MdlParamSpec *const *tables)
{
  if (!model)
    return;
  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++) {
      if (s->type == MDL_PARAM_STRING)
        g_free(*(char **)field(model, s));
    }
  }
  g_free(*(char **)model);
  g_free(model);
}

static gboolean in_skip(const char *const *skip, const char *key)
{
  return skip && g_strv_contains(skip, key);
}

void mdl_params_apply_defaults(const MdlParamSpec *const *tables, void *model)
{
  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++) {
      gboolean ok;
      if (!s->fallback || (s->type == MDL_PARAM_STRING && !*s->fallback))
        continue;
      if (param_zero_is_unset(s)) {
        *(guint32 *)field(model, s) = 0;
        continue;
      }
      ok = mdl_param_set(s, model, s->fallback, "default", NULL);
      g_assert(ok);
    }
  }
}

gboolean mdl_params_check_required(GKeyFile *kf, const char *group,
                                   const MdlParamSpec *const *tables,
                                   const char *const *skip, const char *where,
                                   GError **error)
{
  for (; *tables; tables++) {
    for (const MdlParamSpec *s = *tables; s->key; s++) {
      if (s->fallback || in_skip(skip, s->key) ||
          g_key_file_has_key(kf, group, s->key, NULL))
        continue;
      g_set_error(error, MDL_ERROR, MDL_ERROR_MISSING,
                  "%s %s: missing (%s; no default)", where, s->key, s->help);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean mdl_params_apply_group(GKeyFile *kf, const char *group,
                                const MdlParamSpec *const *tables,
                                const char *const *skip, void *model,
                                const char *where, GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);

  for (guint i = 0; keys && keys[i]; i++) {
    const MdlParamSpec *spec;
    g_autofree char *value = NULL;
    g_autoptr(GError) local = NULL;

    if (in_skip(skip, keys[i]))
      continue;
    spec = mdl_param_find(tables, keys[i]);
    if (!spec) {
      const char *near = mdl_param_suggest(tables, keys[i]);
      g_autofree char *known = mdl_param_list_keys(tables);
      if (near)
        g_set_error(error, MDL_ERROR, MDL_ERROR_UNKNOWN,
                    "%s %s: unknown key (did you mean %s?)", where, keys[i],
                    near);
      else
        g_set_error(error, MDL_ERROR, MDL_ERROR_UNKNOWN,
                    "%s %s: unknown key (expected one of: %s)", where, keys[i],
                    known);
      return FALSE;
    }
    value = g_key_file_get_string(kf, group, keys[i], &local);
    if (!value) {
      g_set_error(error, MDL_ERROR, MDL_ERROR_VALUE, "%s %s: %s", where,
                  keys[i], local->message);
      return FALSE;
    }
    if (!mdl_param_set(spec, model, value, where, error))
      return FALSE;
  }
  return TRUE;
}
