/* Tensor accounting: every tensor of a validated input is checked (claimed by a module), plain
 * (an unquantized float no scheme claims) or unchecked (quantized, or part of a scheme, and not
 * decoded), with the reason. "pass" is never said about a tensor nobody checked. */
#ifndef PC_ACCOUNTING_H
#define PC_ACCOUNTING_H

#include "packcheck_internal.h"

/* Classify every tensor of `in` into in->acct (cx: the findings so far). Returns -1 when out of memory. */
int pc_accounting_run(pc_input *in, const pc_ctx *cx);
void pc_accounting_free(pc_input *in);

/* The class of tensors[i] after pc_accounting_run. */
pc_tensor_class pc_tensor_class_of(const pc_input *in, size_t i);

#endif
