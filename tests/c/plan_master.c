/*
 * plan_master: a small FMI 2.0 / 3.0 Co-Simulation master in plain C, built
 * with each platform's C compiler against the official FMI headers (read at
 * build time from FMPy's package in the project's venv) and run where the
 * platform's binary runs: natively, under wine64, under qemu-aarch64.
 *
 * It knows nothing about the models. A plan file (written by the
 * `cross-platform` tool of the tests crate) says which library to load, the
 * FMI functions it must export, the parameters, the inputs per step and the
 * outputs to record. Usage:
 *
 *     plan_master PLAN RESULT [PLAN RESULT ...]
 *
 * Each RESULT gets one line per recorded point, "t y1 ... ym" in %.17g, and
 * a last line "# ok <steps>" or "# error <what>". The exit status is the
 * number of plans that failed (at most 100).
 *
 * Plan format, one item per line:
 *   fmi 2|3
 *   name <instance name>
 *   binary <path of the shared library>
 *   token <FMI 2 guid / FMI 3 instantiation token>
 *   resources <FMI 2 resource URI / FMI 3 resource path>
 *   start <s>  stop <s>  step <s>  tolerance <rel, 0 = not given>
 *   record_every <k>  steps <n>
 *   require <count> <function names...>
 *   param <S|P> <r|i|b> <vr> <value>     (S: structural, FMI 3 sets it in
 *                                          Configuration Mode)
 *   inputs <count> <vrs...>               (Float64 / Real inputs)
 *   outputs <count> <vrs...>
 *   rows <count>, then <count> lines "<step k> <values...>": the inputs are
 *   set to these values before doStep number k (row 0 before initialization)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2FunctionTypes.h"
#include "fmi3FunctionTypes.h"

#ifdef _WIN32
#include <windows.h>
typedef HMODULE Library;
static Library open_library(const char *path) { return LoadLibraryA(path); }
static void *symbol(Library lib, const char *name) {
    return (void *)(uintptr_t)GetProcAddress(lib, name);
}
static void close_library(Library lib) { FreeLibrary(lib); }
static const char *load_error(void) {
    static char text[64];
    snprintf(text, sizeof text, "Windows error %lu", (unsigned long)GetLastError());
    return text;
}
#else
#include <dlfcn.h>
typedef void *Library;
static Library open_library(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *symbol(Library lib, const char *name) { return dlsym(lib, name); }
static void close_library(Library lib) { dlclose(lib); }
static const char *load_error(void) {
    const char *e = dlerror();
    return e ? e : "unknown error";
}
#endif

#define MAX_VARS 64
#define MAX_PARAMS 64
#define MAX_TEXT 4096

typedef struct {
    char structural;
    char type;
    unsigned vr;
    double value;
} Param;

typedef struct {
    int fmi;
    char name[256], binary[MAX_TEXT], token[512], resources[MAX_TEXT];
    double start, stop, step, tolerance;
    long record_every, steps;
    int n_params, n_inputs, n_outputs;
    Param params[MAX_PARAMS];
    unsigned inputs[MAX_VARS], outputs[MAX_VARS];
    long n_rows;
    long *row_step;
    double *row_values;
    int n_required;
    char **required;
} Plan;

static char failure[MAX_TEXT];

static int fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(failure, sizeof failure, format, args);
    va_end(args);
    return 0;
}

/* The rest of the line after the keyword, without the newline. */
static int read_rest(FILE *f, char *out, size_t size) {
    int c;
    while ((c = fgetc(f)) == ' ' || c == '\t') {
    }
    if (c == EOF) return 0;
    ungetc(c, f);
    if (!fgets(out, (int)size, f)) return 0;
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r')) out[--n] = 0;
    return 1;
}

static int read_vrs(FILE *f, int *count, unsigned *vrs) {
    if (fscanf(f, "%d", count) != 1 || *count < 0 || *count > MAX_VARS) return 0;
    for (int i = 0; i < *count; i++)
        if (fscanf(f, "%u", &vrs[i]) != 1) return 0;
    return 1;
}

static int read_plan(const char *path, Plan *p) {
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "r");
    if (!f) return fail("cannot open plan %s", path);
    char key[64];
    int ok = 1;
    while (ok && fscanf(f, "%63s", key) == 1) {
        if (!strcmp(key, "fmi")) ok = fscanf(f, "%d", &p->fmi) == 1;
        else if (!strcmp(key, "name")) ok = read_rest(f, p->name, sizeof p->name);
        else if (!strcmp(key, "binary")) ok = read_rest(f, p->binary, sizeof p->binary);
        else if (!strcmp(key, "token")) ok = read_rest(f, p->token, sizeof p->token);
        else if (!strcmp(key, "resources")) ok = read_rest(f, p->resources, sizeof p->resources);
        else if (!strcmp(key, "start")) ok = fscanf(f, "%lf", &p->start) == 1;
        else if (!strcmp(key, "stop")) ok = fscanf(f, "%lf", &p->stop) == 1;
        else if (!strcmp(key, "step")) ok = fscanf(f, "%lf", &p->step) == 1;
        else if (!strcmp(key, "tolerance")) ok = fscanf(f, "%lf", &p->tolerance) == 1;
        else if (!strcmp(key, "record_every")) ok = fscanf(f, "%ld", &p->record_every) == 1;
        else if (!strcmp(key, "steps")) ok = fscanf(f, "%ld", &p->steps) == 1;
        else if (!strcmp(key, "require")) {
            ok = fscanf(f, "%d", &p->n_required) == 1 && p->n_required >= 0 && p->n_required < 1000;
            if (ok) p->required = calloc((size_t)p->n_required + 1, sizeof(char *));
            for (int i = 0; ok && i < p->n_required; i++) {
                char name[128];
                ok = fscanf(f, "%127s", name) == 1;
                if (ok) p->required[i] = strdup(name);
            }
        } else if (!strcmp(key, "param")) {
            ok = p->n_params < MAX_PARAMS;
            if (ok) {
                Param *q = &p->params[p->n_params++];
                ok = fscanf(f, " %c %c %u %lf", &q->structural, &q->type, &q->vr, &q->value) == 4;
            }
        } else if (!strcmp(key, "inputs")) ok = read_vrs(f, &p->n_inputs, p->inputs);
        else if (!strcmp(key, "outputs")) ok = read_vrs(f, &p->n_outputs, p->outputs);
        else if (!strcmp(key, "rows")) {
            ok = fscanf(f, "%ld", &p->n_rows) == 1 && p->n_rows >= 0;
            if (ok) {
                p->row_step = calloc((size_t)p->n_rows + 1, sizeof(long));
                p->row_values = calloc(((size_t)p->n_rows + 1) * (size_t)(p->n_inputs + 1), sizeof(double));
                ok = p->row_step && p->row_values;
            }
            for (long r = 0; ok && r < p->n_rows; r++) {
                ok = fscanf(f, "%ld", &p->row_step[r]) == 1;
                for (int i = 0; ok && i < p->n_inputs; i++)
                    ok = fscanf(f, "%lf", &p->row_values[r * p->n_inputs + i]) == 1;
            }
        } else {
            fclose(f);
            return fail("plan %s: unknown item '%s'", path, key);
        }
    }
    fclose(f);
    if (!ok) return fail("plan %s: malformed item '%s'", path, key);
    if ((p->fmi != 2 && p->fmi != 3) || !p->binary[0] || p->step <= 0 || p->steps <= 0 || p->record_every <= 0)
        return fail("plan %s: fmi, binary, step, steps or record_every missing", path);
    return 1;
}

static void free_plan(Plan *p) {
    for (int i = 0; i < p->n_required; i++) free(p->required[i]);
    free(p->required);
    free(p->row_step);
    free(p->row_values);
}

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category, fmi3String message) {
    (void)env;
    fprintf(stderr, "  [fmi3 status %d, %s] %s\n", (int)status, category ? category : "", message ? message : "");
}

static void logger2(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status, fmi2String category,
                 fmi2String message, ...) {
    (void)env;
    fprintf(stderr, "  [fmi2 %s status %d, %s] ", instance ? instance : "", (int)status, category ? category : "");
    va_list args;
    va_start(args, message);
    if (message) vfprintf(stderr, message, args);
    va_end(args);
    fputc('\n', stderr);
}

#define LOAD(lib, type, var, name)                                       \
    type *var = (type *)symbol(lib, name);                               \
    if (!var) {                                                          \
        fail("%s does not export %s", p->binary, name);                  \
        goto done;                                                       \
    }

static void record(FILE *out, double t, const double *y, int n) {
    fprintf(out, "%.17g", t);
    for (int i = 0; i < n; i++) fprintf(out, " %.17g", y[i]);
    fputc('\n', out);
}

/* Runs an FMI 3 plan; returns 1 on success. */
static int run3(const Plan *p, Library lib, FILE *out) {
    int ok = 0;
    fmi3Instance inst = NULL;
    LOAD(lib, fmi3InstantiateCoSimulationTYPE, instantiate, "fmi3InstantiateCoSimulation")
    LOAD(lib, fmi3FreeInstanceTYPE, free_instance, "fmi3FreeInstance")
    LOAD(lib, fmi3EnterConfigurationModeTYPE, enter_config, "fmi3EnterConfigurationMode")
    LOAD(lib, fmi3ExitConfigurationModeTYPE, exit_config, "fmi3ExitConfigurationMode")
    LOAD(lib, fmi3EnterInitializationModeTYPE, enter_init, "fmi3EnterInitializationMode")
    LOAD(lib, fmi3ExitInitializationModeTYPE, exit_init, "fmi3ExitInitializationMode")
    LOAD(lib, fmi3SetFloat64TYPE, set_f64, "fmi3SetFloat64")
    LOAD(lib, fmi3SetInt32TYPE, set_i32, "fmi3SetInt32")
    LOAD(lib, fmi3SetBooleanTYPE, set_bool, "fmi3SetBoolean")
    LOAD(lib, fmi3GetFloat64TYPE, get_f64, "fmi3GetFloat64")
    LOAD(lib, fmi3DoStepTYPE, do_step, "fmi3DoStep")
    LOAD(lib, fmi3TerminateTYPE, terminate, "fmi3Terminate")
    (void)free_instance;

    inst = instantiate(p->name, p->token, p->resources, fmi3False, fmi3False, fmi3False, fmi3False, NULL, 0,
                       NULL, logger3, NULL);
    if (!inst) {
        fail("fmi3InstantiateCoSimulation returned NULL");
        goto done;
    }
    for (int pass = 0; pass < 2; pass++) {
        int structural = pass == 0, any = 0;
        for (int i = 0; i < p->n_params; i++) any |= (p->params[i].structural == 'S') == structural;
        if (!any) continue;
        if (structural && enter_config(inst) > fmi3Warning) {
            fail("fmi3EnterConfigurationMode failed");
            goto done;
        }
        for (int i = 0; i < p->n_params; i++) {
            const Param *q = &p->params[i];
            if ((q->structural == 'S') != structural) continue;
            fmi3ValueReference vr = q->vr;
            fmi3Status s;
            if (q->type == 'i') {
                fmi3Int32 v = (fmi3Int32)q->value;
                s = set_i32(inst, &vr, 1, &v, 1);
            } else if (q->type == 'b') {
                fmi3Boolean v = q->value != 0.0;
                s = set_bool(inst, &vr, 1, &v, 1);
            } else {
                s = set_f64(inst, &vr, 1, &q->value, 1);
            }
            if (s > fmi3Warning) {
                fail("setting parameter vr %u to %.17g failed (status %d)", q->vr, q->value, (int)s);
                goto done;
            }
        }
        if (structural && exit_config(inst) > fmi3Warning) {
            fail("fmi3ExitConfigurationMode failed");
            goto done;
        }
    }
    long row = 0;
    if (p->n_rows > 0 && p->row_step[0] == 0) {
        if (p->n_inputs && set_f64(inst, p->inputs, (size_t)p->n_inputs, p->row_values, (size_t)p->n_inputs) > fmi3Warning) {
            fail("setting the initial inputs failed");
            goto done;
        }
        row = 1;
    }
    if (enter_init(inst, p->tolerance > 0, p->tolerance, p->start, fmi3True, p->stop) > fmi3Warning ||
        exit_init(inst) > fmi3Warning) {
        fail("initialization failed");
        goto done;
    }
    double y[MAX_VARS];
    if (get_f64(inst, p->outputs, (size_t)p->n_outputs, y, (size_t)p->n_outputs) > fmi3Warning) {
        fail("fmi3GetFloat64 failed at the start");
        goto done;
    }
    record(out, p->start, y, p->n_outputs);
    for (long k = 0; k < p->steps; k++) {
        double t = p->start + (double)k * p->step;
        if (row < p->n_rows && p->row_step[row] == k) {
            if (set_f64(inst, p->inputs, (size_t)p->n_inputs, &p->row_values[row * p->n_inputs],
                        (size_t)p->n_inputs) > fmi3Warning) {
                fail("setting inputs before step %ld failed", k);
                goto done;
            }
            row++;
        }
        fmi3Boolean event = fmi3False, stop = fmi3False, early = fmi3False;
        fmi3Float64 last = t;
        fmi3Status s = do_step(inst, t, p->step, fmi3True, &event, &stop, &early, &last);
        if (s > fmi3Warning) {
            fail("fmi3DoStep at t = %.17g returned status %d", t, (int)s);
            goto done;
        }
        if ((k + 1) % p->record_every == 0 || k + 1 == p->steps) {
            if (get_f64(inst, p->outputs, (size_t)p->n_outputs, y, (size_t)p->n_outputs) > fmi3Warning) {
                fail("fmi3GetFloat64 failed after step %ld", k);
                goto done;
            }
            record(out, p->start + (double)(k + 1) * p->step, y, p->n_outputs);
        }
    }
    ok = terminate(inst) <= fmi3Warning;
    if (!ok) fail("fmi3Terminate failed");
done:
    if (inst) {
        fmi3FreeInstanceTYPE *free_instance2 = (fmi3FreeInstanceTYPE *)symbol(lib, "fmi3FreeInstance");
        if (free_instance2) free_instance2(inst);
    }
    return ok;
}

/* Runs an FMI 2 plan; returns 1 on success. */
static int run2(const Plan *p, Library lib, FILE *out) {
    int ok = 0;
    fmi2Component inst = NULL;
    fmi2CallbackFunctions callbacks = {logger2, calloc, free, NULL, NULL};
    LOAD(lib, fmi2InstantiateTYPE, instantiate, "fmi2Instantiate")
    LOAD(lib, fmi2FreeInstanceTYPE, free_instance, "fmi2FreeInstance")
    LOAD(lib, fmi2SetupExperimentTYPE, setup, "fmi2SetupExperiment")
    LOAD(lib, fmi2EnterInitializationModeTYPE, enter_init, "fmi2EnterInitializationMode")
    LOAD(lib, fmi2ExitInitializationModeTYPE, exit_init, "fmi2ExitInitializationMode")
    LOAD(lib, fmi2SetRealTYPE, set_real, "fmi2SetReal")
    LOAD(lib, fmi2SetIntegerTYPE, set_int, "fmi2SetInteger")
    LOAD(lib, fmi2SetBooleanTYPE, set_bool, "fmi2SetBoolean")
    LOAD(lib, fmi2GetRealTYPE, get_real, "fmi2GetReal")
    LOAD(lib, fmi2DoStepTYPE, do_step, "fmi2DoStep")
    LOAD(lib, fmi2TerminateTYPE, terminate, "fmi2Terminate")
    (void)free_instance;

    inst = instantiate(p->name, fmi2CoSimulation, p->token, p->resources, &callbacks, fmi2False, fmi2False);
    if (!inst) {
        fail("fmi2Instantiate returned NULL");
        goto done;
    }
    for (int i = 0; i < p->n_params; i++) {
        const Param *q = &p->params[i];
        fmi2ValueReference vr = q->vr;
        fmi2Status s;
        if (q->type == 'i') {
            fmi2Integer v = (fmi2Integer)q->value;
            s = set_int(inst, &vr, 1, &v);
        } else if (q->type == 'b') {
            fmi2Boolean v = q->value != 0.0;
            s = set_bool(inst, &vr, 1, &v);
        } else {
            s = set_real(inst, &vr, 1, &q->value);
        }
        if (s > fmi2Warning) {
            fail("setting parameter vr %u to %.17g failed (status %d)", q->vr, q->value, (int)s);
            goto done;
        }
    }
    long row = 0;
    if (p->n_rows > 0 && p->row_step[0] == 0) {
        if (p->n_inputs && set_real(inst, p->inputs, (size_t)p->n_inputs, p->row_values) > fmi2Warning) {
            fail("setting the initial inputs failed");
            goto done;
        }
        row = 1;
    }
    if (setup(inst, p->tolerance > 0, p->tolerance, p->start, fmi2True, p->stop) > fmi2Warning ||
        enter_init(inst) > fmi2Warning || exit_init(inst) > fmi2Warning) {
        fail("initialization failed");
        goto done;
    }
    double y[MAX_VARS];
    if (get_real(inst, p->outputs, (size_t)p->n_outputs, y) > fmi2Warning) {
        fail("fmi2GetReal failed at the start");
        goto done;
    }
    record(out, p->start, y, p->n_outputs);
    for (long k = 0; k < p->steps; k++) {
        double t = p->start + (double)k * p->step;
        if (row < p->n_rows && p->row_step[row] == k) {
            if (set_real(inst, p->inputs, (size_t)p->n_inputs, &p->row_values[row * p->n_inputs]) > fmi2Warning) {
                fail("setting inputs before step %ld failed", k);
                goto done;
            }
            row++;
        }
        fmi2Status s = do_step(inst, t, p->step, fmi2True);
        if (s > fmi2Warning) {
            fail("fmi2DoStep at t = %.17g returned status %d", t, (int)s);
            goto done;
        }
        if ((k + 1) % p->record_every == 0 || k + 1 == p->steps) {
            if (get_real(inst, p->outputs, (size_t)p->n_outputs, y) > fmi2Warning) {
                fail("fmi2GetReal failed after step %ld", k);
                goto done;
            }
            record(out, p->start + (double)(k + 1) * p->step, y, p->n_outputs);
        }
    }
    ok = terminate(inst) <= fmi2Warning;
    if (!ok) fail("fmi2Terminate failed");
done:
    if (inst) {
        fmi2FreeInstanceTYPE *free_instance2 = (fmi2FreeInstanceTYPE *)symbol(lib, "fmi2FreeInstance");
        if (free_instance2) free_instance2(inst);
    }
    return ok;
}

static int run(const char *plan_path, const char *result_path) {
    Plan plan;
    failure[0] = 0;
    FILE *out = fopen(result_path, "w");
    if (!out) {
        fprintf(stderr, "cannot write %s\n", result_path);
        return 0;
    }
    int ok = read_plan(plan_path, &plan);
    Library lib = NULL;
    if (ok) {
        lib = open_library(plan.binary);
        if (!lib) ok = fail("cannot load %s: %s", plan.binary, load_error());
    }
    /* Every function of the official headers must be there, not only the
     * ones this master calls. */
    for (int i = 0; ok && i < plan.n_required; i++)
        if (!symbol(lib, plan.required[i])) ok = fail("%s does not export %s", plan.binary, plan.required[i]);
    if (ok) ok = plan.fmi == 3 ? run3(&plan, lib, out) : run2(&plan, lib, out);
    if (ok) fprintf(out, "# ok %ld\n", plan.steps);
    else fprintf(out, "# error %s\n", failure);
    fclose(out);
    if (lib) close_library(lib);
    free_plan(&plan);
    if (!ok) fprintf(stderr, "%s: %s\n", plan_path, failure);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc % 2 == 0) {
        fprintf(stderr, "usage: %s PLAN RESULT [PLAN RESULT ...]\n", argv[0]);
        return 100;
    }
    int failed = 0;
    for (int i = 1; i + 1 < argc; i += 2) failed += !run(argv[i], argv[i + 1]);
    return failed > 100 ? 100 : failed;
}
