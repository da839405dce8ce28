/* A generated launcher's prepare_weights on the CPU: the prepared layer's
 * output, one line per 16 pieces, each piece named row:piece by its first
 * byte (rows of 128 bytes, eight 16-byte pieces); a piece torn apart is
 * reported. Then the layer the layout does not apply to (a copy) and the
 * argument checks. */
#include "prep.h"

#include <stdio.h>
#include <string.h>

enum { kRows = 32, kRowBytes = 128, kBytes = kRows * kRowBytes };

static void report(const char *what, qmat_status status) {
  printf("%s: %d %s\n", what, (int)status, status ? prep_last_error() : "ok");
}

int main(void) {
  static unsigned char weights[kBytes], prepared[kBytes];
  for (int i = 0; i < kBytes; ++i) {
    int piece = i / 16;
    weights[i] = (unsigned char)(i % 16 == 0 ? piece : (piece + i % 16) & 0xff);
  }
  memset(prepared, 0xAA, sizeof prepared);
  report("prepared", prep_tiles_prepare_weights(weights, prepared));
  for (int line = 0; line < kBytes / 256; ++line) {
    for (int c = 16 * line; c < 16 * line + 16; ++c) {
      int piece = prepared[16 * c];
      for (int j = 1; j < 16; ++j)
        if (prepared[16 * c + j] != ((piece + j) & 0xff))
          printf("torn piece at chunk %d\n", c);
      printf("%s%d:%d", c % 16 ? " " : "", piece / 8, piece % 8);
    }
    printf("\n");
  }

  memset(prepared, 0xAA, sizeof prepared);
  report("checkpoint layout", prep_rows24_prepare_weights(weights, prepared));
  printf("copy identical: %d\n",
         memcmp(weights, prepared, 24 * kRowBytes) == 0);

  report("null weights", prep_tiles_prepare_weights(NULL, prepared));
  report("null prepared", prep_tiles_prepare_weights(weights, NULL));
  report("overlap", prep_tiles_prepare_weights(weights, weights + 16));
  return 0;
}
