#pragma once
// lazyview: PyTorch-exact lazy view chains that fold into one layout and evaluate in one pass.
// Users include only this header.
#include "config.hpp"
#include "core/error.hpp"
#include "core/integers.hpp"
#include "core/layout.hpp"
#include "diag/static_check.hpp"
#include "eval/copy.hpp"
#include "eval/tensor.hpp"
#include "expr/leaf.hpp"
#include "expr/node.hpp"
#include "fold/fold.hpp"
#include "io/explain.hpp"
#include "io/print.hpp"
