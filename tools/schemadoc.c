/* schemadoc: prints the part of docs/summary-schema.md that tables.def
 * declares (every column of the tables of one row per name, and every field
 * of the records of a section's figures: key, kind, unit, label, definition), or with "rules" the README's table of suggestion rules
 * from rules.def (id, where it applies, title, threshold, source), so the
 * documents cannot drift from the code. tools/schemadoc.sh splices them in
 * (update) or compares (check, in make test). */
#include "summary/table.h"
#include "analyze/rules.h"
#include <stdio.h>
#include <string.h>

/* the kind and, for times, sizes and counts, the range the reader checks (validate.c) */
static const char *kind_name(const pc_col *c) {
    char k = c->kind;
    if (tab_col_bounded(c))
        return k == 'I' ? "integer 0 to 2^62" : k == 'J' ? "integer within ±2^62" : k == 'F' ? "number 0 to 2^62" : k == 'V' ? "list of numbers 0 to 2^62" : "?";
    return k == 'S' ? "string" : k == 'I' ? "integer >= 0" : k == 'J' ? "integer" : k == 'F' ? "number >= 0" : k == 'B' ? "bool" : k == 'V' ? "list of numbers >= 0" : "?";
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "rules")) {
        printf("| rule | applies to | finding | fires when | time at stake | threshold from |\n|---|---|---|---|---|---|\n");
        for (const pc_rule *r = pc_rules; r->id; r++)
            printf("| `%s` | %s | %s | %s | %s | %s |\n", r->id, r->fw == FW_PYTORCH ? "PyTorch programs (Kineto traces with aten:: operators)" : "any trace",
                   r->title, r->threshold, r->stake, r->source);
        return 0;
    }
    for (int i = 0; i < TAB_COUNT; i++) {
        const pc_table_def *d = &pc_table_defs[i];
        if (d->record) printf("### `%s`\n\nMembers of the object `%s` (a record: read in C with `PC_REC`).\n\n", d->path, d->path);
        else printf("### `%s[]`\n\n", d->path);
        printf("| key | kind | unit | shown as | definition |\n|---|---|---|---|---|\n");
        for (size_t q = 0; q < d->ncols; q++) {
            const pc_col *c = &d->cols[q];
            printf("| `%s` | %s | %s | %s | %s |\n", c->key, kind_name(c), c->unit[0] ? c->unit : "", c->label, c->def);
        }
        printf("\n");
    }
    printf("Every value may be null: a figure the input cannot give. Every number is finite; times, sizes and counts\n"
           "(units ns, µs, bytes, count) are within 2^62, as are the numbers of `timeline.rows[].boxes` and\n"
           "`trace_timeline.events`. In `call_stacks.rows` and `module_rows` a row's `parent` is an earlier row\n"
           "(or -1 for a root) and its `depth` its parent's plus one (0 for a root). A summary.json read with a\n"
           "number outside its range is refused (exit 2), naming the key.\n");
    return 0;
}
