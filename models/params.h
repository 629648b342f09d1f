/* Typed, range-checked parameters read from GKeyFile groups.
 *
 * Every model (link, switch, NIC) declares its keys in a table of
 * MdlParamSpec: the key (units in the name: latency_ns, signal_GBd), its
 * type, where it lives in the model struct, the accepted range or choices,
 * its default, and a one-line help.  Reading a group then needs no per-key
 * code, unknown keys are refused with the list of accepted ones, and every
 * error names the file, the group, the key and what was expected:
 *
 *   calibrated.ini: [link nvlink4] latency_ns: -5 is outside [0, 100000]
 *
 * GKeyFile silently merges a repeated [group] and keeps the last of a
 * repeated key; mdl_ini_check_duplicates refuses both first, with line
 * numbers. */
#ifndef MODELS_PARAMS_H
#define MODELS_PARAMS_H

#include <glib.h>
#include <stddef.h>

#define MDL_ERROR (mdl_error_quark())
GQuark mdl_error_quark(void);

typedef enum {
  MDL_ERROR_SYNTAX,    /* the file is not an INI file */
  MDL_ERROR_UNKNOWN,   /* unknown group, key, model name or family */
  MDL_ERROR_VALUE,     /* a value of the wrong form or outside its range */
  MDL_ERROR_MISSING,   /* a required key is absent */
  MDL_ERROR_DUPLICATE, /* a group or key given twice */
  MDL_ERROR_CONFLICT,  /* values that are fine alone but not together */
} MdlErrorCode;

typedef enum {
  MDL_PARAM_DOUBLE, /* double, in [min, max] */
  MDL_PARAM_UINT,   /* guint32, integer in [min, max] */
  MDL_PARAM_BOOL,   /* gboolean: true/false */
  MDL_PARAM_ENUM,   /* guint32 index into choices */
  MDL_PARAM_STRING, /* char * (owned by the model), non-empty */
} MdlParamType;

typedef struct {
  const char *key;
  MdlParamType type;
  size_t offset;              /* of the field in the model struct */
  double min, max;            /* DOUBLE and UINT */
  const char *const *choices; /* ENUM: NULL-terminated */
  const char *fallback;       /* default as text; NULL: the key is required */
  const char *help;           /* unit, meaning; the source is in docs */
} MdlParamSpec;

/* Tables end with an entry whose key is NULL. */
#define MDL_PARAM_END                                                          \
  {                                                                            \
    NULL, 0, 0, 0, 0, NULL, NULL, NULL                                         \
  }

/* Refuses a repeated [group] or a key repeated within a group, naming the
 * lines.  `file` names the source in messages. */
gboolean mdl_ini_check_duplicates(const char *data, gsize len, const char *file,
                                  GError **error);

/* Loads INI text into a new GKeyFile after mdl_ini_check_duplicates; errors
 * name `file`. */
GKeyFile *mdl_ini_load(const char *data, gsize len, const char *file,
                       GError **error);

/* Sets one parameter from text.  `where` prefixes messages ("f.ini: [link
 * x]").  Returns FALSE, leaving the field unchanged, on a bad value. */
gboolean mdl_param_set(const MdlParamSpec *spec, void *model, const char *text,
                       const char *where, GError **error);

/* Formats a parameter's current value (as a config file would hold it). */
char *mdl_param_format(const MdlParamSpec *spec, const void *model);

/* Splits text at spaces and tabs, dropping empty words. */
GStrv mdl_split_words(const char *text);

/* Finds key in the NULL-terminated list of tables; NULL if absent. */
const MdlParamSpec *mdl_param_find(const MdlParamSpec *const *tables,
                                   const char *key);

/* "a, b, c": every key of the tables, for "unknown key" messages. */
char *mdl_param_list_keys(const MdlParamSpec *const *tables);

/* The key of the tables closest to `key` (at most 2 edits away, for typos),
 * or NULL. */
const char *mdl_param_suggest(const MdlParamSpec *const *tables,
                              const char *key);

/* Sets every parameter that has a default (an empty STRING default leaves
 * the field NULL).  Defaults are valid by construction (tested). */
void mdl_params_apply_defaults(const MdlParamSpec *const *tables,
                               void *model);

/* Refuses a group lacking a key that has no default; `skip` lists keys the
 * caller handles itself (NULL-terminated, may be NULL). */
gboolean mdl_params_check_required(GKeyFile *kf, const char *group,
                                   const MdlParamSpec *const *tables,
                                   const char *const *skip, const char *where,
                                   GError **error);

/* Sets every key of a group on model; a key that is neither in the tables
 * nor in `skip` is an error suggesting the nearest known key. */
gboolean mdl_params_apply_group(GKeyFile *kf, const char *group,
                                const MdlParamSpec *const *tables,
                                const char *const *skip, void *model,
                                const char *where, GError **error);

/* Models are structs that start with `char *name`, then the fields their
 * parameter tables describe (STRING fields owned).  These copy and free
 * one: the name and every STRING field are duplicated or freed. */
void *mdl_model_dup(const void *model, gsize size,
                    const MdlParamSpec *const *tables);
void mdl_model_free(void *model, const MdlParamSpec *const *tables);

#endif /* MODELS_PARAMS_H */
