/* order.h - the building block of qsort comparators: PC_CMP(a, b) is -1, 0
 * or 1 as a is below, equal to or above b (numbers of any type; no
 * subtraction, so no overflow). A comparator on several keys returns the
 * first key's PC_CMP unless it is 0. */
#ifndef PC_ORDER_H
#define PC_ORDER_H
#define PC_CMP(a, b) (((a) > (b)) - ((a) < (b)))
#endif
