// einsum: Einstein summation over labelled dims, as torch.einsum.
#pragma once
#include <span>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// "ij,jk->ik": one label (a letter) per dim of each operand; without "->" the output is "..." plus the labels seen
// once, in alphabetical order. "..." stands for broadcast dims; a label repeated in one operand takes a diagonal;
// labels missing from the output are summed. Several operands contract pairwise, the smallest result first, each
// pair through one batched matrix product.
Tensor einsum(std::string_view equation, std::span<const Tensor> operands);

}  // namespace ember
