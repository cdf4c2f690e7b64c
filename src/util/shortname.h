/* shortname.h - short names for kernels and operators, for the places a
 * name is shown (table cells, chart labels, summary.md); the full name stays
 * in summary.json, the CSVs and the title attribute.
 *
 * A demangled C++ signature ("void at::native::vectorized_elementwise_kernel<
 * 4, at::native::FillFunctor<int>, at::detail::Array<char*, 1> >(int, ...)")
 * loses its return type, namespaces, template arguments and parameter list,
 * keeping what tells kernels apart: "vectorized_elementwise_kernel<…>
 * (FillFunctor)" - the first template argument that names a class (wrapper
 * functors and ReduceOp looked through; pointers, numbers, built-in types and
 * helper types such as at::detail::Array skipped), or, for a lambda, the
 * function that encloses it ("(neg_kernel_cuda)"). cutlass::Kernel<X> reads X.
 * Anything else (aten::mm, NVTX ranges, "autograd::engine::evaluate_function:
 * ...", Python frames) is kept as it is. Every level is cut to at most `max`
 * characters (code points) in its middle ("…"), so both ends stay.
 *
 * Level 0 is the shortest; level 1 adds the distinguishing argument's own
 * template arguments (FillFunctor<int>), or all the template arguments
 * without namespaces when there is none; level 2 keeps the function's
 * namespaces too. Total: any bytes (invalid UTF-8 repaired to U+FFFD,
 * unbalanced brackets, megabytes) give a valid UTF-8 string in linear time.
 */
#ifndef PC_SHORTNAME_H
#define PC_SHORTNAME_H
#include <stddef.h>

/* a table cell; a bar chart's label column (760 px * 0.42 at 11 px sans:
 * every kernel name of ../shared/data's traces fits whole at 44) */
enum { PC_SHORT_TABLE = 100, PC_SHORT_CHART = 44 };

/* malloc'd short form of name (NULL reads as "") at level 0..2, at most max
 * (>= 8) code points. */
char *pc_short_name(const char *name, int level, size_t max);
/* out[i] (malloc'd) for names[0..n): two different names never share a short
 * name (the next level for those that collide, then " #2", " #3"... in the
 * order given); equal names share one. */
void pc_short_names(const char *const *names, size_t n, size_t max, char **out);
/* The last place before byte i (< i; 0 when none) where a name may be cut
 * short: between identifiers or the words of one, else at a code point
 * (shortname.c's cut_ok) - for text cut to a width (a chart's labels). */
size_t pc_name_cut_before(const char *s, size_t i);
#endif
