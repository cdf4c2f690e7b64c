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

static const char *kind_name(char k) {
    return k == 'S' ? "string" : k == 'I' ? "integer >= 0" : k == 'J' ? "integer" : k == 'F' ? "number >= 0" : k == 'B' ? "bool" : k == 'V' ? "list of numbers >= 0" : "?";
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "rules")) {
        printf("| rule | applies to | finding | fires when | threshold from |\n|---|---|---|---|---|\n");
        for (const pc_rule *r = pc_rules; r->id; r++)
            printf("| `%s` | %s | %s | %s | %s |\n", r->id, r->fw == FW_PYTORCH ? "PyTorch traces (aten:: operators)" : "any trace",
                   r->title, r->threshold, r->source);
        return 0;
    }
    for (int i = 0; i < TAB_COUNT; i++) {
        const pc_table_def *d = &pc_table_defs[i];
        if (d->record) printf("### `%s`\n\nMembers of the object `%s` (a record: read in C with `PC_REC`).\n\n", d->path, d->path);
        else printf("### `%s[]`\n\n", d->path);
        printf("| key | kind | unit | shown as | definition |\n|---|---|---|---|---|\n");
        for (size_t q = 0; q < d->ncols; q++) {
            const pc_col *c = &d->cols[q];
            printf("| `%s` | %s | %s | %s | %s |\n", c->key, kind_name(c->kind), c->unit[0] ? c->unit : "", c->label, c->def);
        }
        printf("\n");
    }
    printf("Every value may be null: a figure the input cannot give.\n");
    return 0;
}
