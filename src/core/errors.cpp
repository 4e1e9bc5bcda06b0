#include "ember/errors.h"

#include <cstdio>

namespace ember {

namespace {

void print_warning(const std::string& message) { std::fprintf(stderr, "UserWarning: %s\n", message.c_str()); }

WarningHandler g_warning_handler = &print_warning;

}  // namespace

void set_warning_handler(WarningHandler handler) { g_warning_handler = handler ? handler : &print_warning; }

void warn(const std::string& message) { g_warning_handler(message); }

}  // namespace ember
