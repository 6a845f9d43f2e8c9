/* pbrain-tiny: a small deterministic Gomocup brain (the Piskvork protocol) for Tengen's tests.
 *
 * The tests build it (cc -O2 -o DIR/pbrain-tiny tests/engines/pbrain_tiny.c) and play it over
 * pipes, as Piskvork or a Gomocup manager would: the real protocol, replies ended by \r\n as
 * brains built for Windows send them. Protocol: https://plastovicka.github.io/protocl2en.htm
 * Coordinates are "x,y", 0-based from the top-left.
 *
 * Start reading at main(), then choose(). The play, in order: make a five; block the
 * opponent's five; make a four that cannot be stopped (a straight four or two fours); stop
 * the opponent's such point; else the point with the best small pattern score (every run of
 * five cells through the point, for both sides). Under Renju (INFO rule 4) the brain as Black
 * never plays a double-three, double-four or overline, with a simple judge (shape()) that
 * counts more threes than the real rule does (it does not look whether the point that would
 * make the three a straight four is itself forbidden): it may avoid a legal point, never play
 * a forbidden one.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 32
static int N = 0;        /* board size, 0 before START */
static int rule = 0;     /* INFO rule: bit 1 exactly five, bit 4 Renju */
static int me_black = 0; /* the brain moves first: Black */
static int B[MAXN][MAXN]; /* [x][y]: 0 empty, 1 the brain's, 2 the opponent's */
static const int DX[4] = {1, 0, 1, 1}, DY[4] = {0, 1, 1, -1};

static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fputs("\r\n", stdout);
  fflush(stdout);
}

static int on(int x, int y) { return x >= 0 && y >= 0 && x < N && y < N; }
static int is_black(int c) { return (c == 1) == me_black; }
static int renju_black(int c) { return (rule & 4) && is_black(c); }

/* Stones of c in a row through (x, y) along direction d, (x, y) counted as c's. */
static int run(int x, int y, int d, int c) {
  int n = 1, i;
  for (i = 1; on(x + i * DX[d], y + i * DY[d]) && B[x + i * DX[d]][y + i * DY[d]] == c; i++) n++;
  for (i = 1; on(x - i * DX[d], y - i * DY[d]) && B[x - i * DX[d]][y - i * DY[d]] == c; i++) n++;
  return n;
}

/* Does a stone of c on (x, y) make a winning five along d? Exactly five under rule 1 and for
 * Renju's Black; five or more otherwise. */
static int five_along(int x, int y, int d, int c) {
  int n = run(x, y, d, c);
  return n == 5 || (n > 5 && !(rule & 1) && !renju_black(c));
}

static int wins(int x, int y, int c) {
  int d;
  for (d = 0; d < 4; d++)
    if (five_along(x, y, d, c)) return 1;
  return 0;
}

/* The empty points along d (offsets -5..5 from (x, y)) where c would complete a five. */
static int completions(int x, int y, int d, int c, int *at) {
  int k, n = 0;
  for (k = -5; k <= 5; k++) {
    int px = x + k * DX[d], py = y + k * DY[d];
    if (k && on(px, py) && !B[px][py] && five_along(px, py, d, c)) at[n++] = k;
  }
  return n;
}

/* With a stone of c on empty (x, y): its fours, open threes, overline and completion points. */
static void shape(int x, int y, int c, int *fours, int *threes, int *over, int *points) {
  int d, k, at[11];
  *fours = *threes = *over = *points = 0;
  B[x][y] = c;
  for (d = 0; d < 4; d++) {
    int n = completions(x, y, d, c, at);
    if (run(x, y, d, c) > 5) *over = 1;
    *points += n;
    if (n) {
      *fours += (n == 2 && at[1] - at[0] == 5) ? 1 : n; /* a straight four is one four */
      continue;
    }
    for (k = -4; k <= 4; k++) { /* a three: one more stone makes a straight four through it */
      int qx = x + k * DX[d], qy = y + k * DY[d], m;
      if (!k || !on(qx, qy) || B[qx][qy]) continue;
      B[qx][qy] = c;
      m = completions(x, y, d, c, at);
      B[qx][qy] = 0;
      if (m == 2 && at[1] - at[0] == 5 && at[0] < 0 && at[1] > 0) {
        (*threes)++;
        break;
      }
    }
  }
  B[x][y] = 0;
}

/* May the brain play (x, y)? Under Renju, Black's double-three, double-four and overline
 * are not (a five always is). */
static int allowed(int x, int y) {
  int f, t, o, p;
  if (!renju_black(1) || wins(x, y, 1)) return 1;
  shape(x, y, 1, &f, &t, &o, &p);
  return !o && f < 2 && t < 2;
}

/* A four nobody can stop: two completion points after the stone. */
static int threat(int x, int y, int c) {
  int f, t, o, p;
  shape(x, y, c, &f, &t, &o, &p);
  if (renju_black(c) && (o || f > 1 || t > 1)) return 0;
  return p >= 2;
}

/* Every five cells in a row through (x, y) that the other side has no stone in, weighted
 * by how many of c's stones they would hold with c's stone on (x, y). */
static long pattern(int x, int y, int c) {
  static const long W[6] = {0, 1, 12, 150, 2000, 100000};
  long s = 0;
  int d, a, i;
  for (d = 0; d < 4; d++)
    for (a = -4; a <= 0; a++) {
      int k = 1, ok = 1;
      for (i = 0; i < 5 && ok; i++) {
        int px = x + (a + i) * DX[d], py = y + (a + i) * DY[d];
        if (!on(px, py) || B[px][py] == 3 - c) ok = 0;
        else if (B[px][py] == c && (a + i)) k++;
      }
      if (ok) s += W[k];
    }
  return s;
}

static int near(int x, int y) {
  int i, j;
  for (i = -2; i <= 2; i++)
    for (j = -2; j <= 2; j++)
      if (on(x + i, y + j) && B[x + i][y + j]) return 1;
  return 0;
}

/* The brain's move: *x, *y; 0 if the board is full. */
static int choose(int *bx, int *by) {
  int step, x, y, empty = 0, stones = 0;
  long best = -1;
  for (x = 0; x < N; x++)
    for (y = 0; y < N; y++) {
      if (B[x][y]) stones++;
      else empty++;
    }
  if (!empty) return 0;
  if (!stones && !B[N / 2][N / 2]) {
    *bx = *by = N / 2;
    return 1;
  }
  for (step = 0; step < 4; step++) /* win, block, unstoppable four, stop the opponent's */
    for (y = 0; y < N; y++)
      for (x = 0; x < N; x++) {
        long s;
        if (B[x][y] || !near(x, y)) continue;
        if (step == 0 && !wins(x, y, 1)) continue;
        if (step == 1 && !wins(x, y, 2)) continue;
        if (step == 2 && !(allowed(x, y) && threat(x, y, 1))) continue;
        if (step == 3 && !(allowed(x, y) && threat(x, y, 2))) continue;
        if (step < 2) {
          *bx = x, *by = y;
          return 1;
        }
        s = pattern(x, y, 1) + pattern(x, y, 2);
        if (s > best) best = s, *bx = x, *by = y;
      }
  if (best >= 0) return 1;
  for (y = 0; y < N; y++)
    for (x = 0; x < N; x++) {
      long s;
      if (B[x][y] || !(near(x, y) || !stones) || !allowed(x, y)) continue;
      s = 11 * pattern(x, y, 1) + 10 * pattern(x, y, 2); /* attack a little before defence */
      if (s > best) best = s, *bx = x, *by = y;
    }
  if (best >= 0) return 1;
  for (y = 0; y < N; y++) /* nothing allowed near: any empty point */
    for (x = 0; x < N; x++)
      if (!B[x][y]) {
        *bx = x, *by = y;
        return 1;
      }
  return 0;
}

static void move(void) {
  int x = 0, y = 0;
  if (!choose(&x, &y)) {
    say("ERROR the board is full");
    return;
  }
  B[x][y] = 1;
  say("%d,%d", x, y);
}

static int point(const char *s, int *x, int *y) {
  return sscanf(s, " %d , %d", x, y) == 2 && on(*x, *y);
}

static void clear(void) { memset(B, 0, sizeof B); }

int main(void) {
  char line[256], word[32];
  while (fgets(line, sizeof line, stdin)) {
    char *args;
    int i, x, y, f;
    line[strcspn(line, "\r\n")] = 0;
    for (i = 0; line[i] && !isspace((unsigned char)line[i]) && i < 31; i++)
      word[i] = (char)toupper((unsigned char)line[i]);
    word[i] = 0;
    args = line + i;
    if (!word[0]) continue;
    if (!strcmp(word, "START")) {
      int n = atoi(args);
      if (n < 5 || n > MAXN) {
        say("ERROR unsupported size %d", n);
        continue;
      }
      N = n, me_black = 0;
      clear();
      say("OK");
    } else if (!strcmp(word, "RESTART")) {
      clear();
      me_black = 0;
      say("OK");
    } else if (!strcmp(word, "INFO")) {
      char key[64];
      int v;
      if (sscanf(args, " %63s %d", key, &v) == 2 && !strcmp(key, "rule")) rule = v;
    } else if (!strcmp(word, "BEGIN")) {
      me_black = 1;
      move();
    } else if (!strcmp(word, "TURN")) {
      if (!point(args, &x, &y) || B[x][y]) {
        say("ERROR bad move %s", args);
        continue;
      }
      B[x][y] = 2;
      move();
    } else if (!strcmp(word, "BOARD")) {
      int mine = 0, theirs = 0;
      clear();
      while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        for (i = 0; line[i] && isspace((unsigned char)line[i]); i++) continue;
        if (!strncmp(line + i, "DONE", 4) || !strncmp(line + i, "done", 4)) break;
        if (sscanf(line, " %d , %d , %d", &x, &y, &f) == 3 && on(x, y)) {
          B[x][y] = f == 1 ? 1 : 2;
          if (f == 1) mine++;
          else theirs++;
        }
      }
      me_black = mine == theirs; /* the side to move with as many stones as the other */
      move();
    } else if (!strcmp(word, "TAKEBACK")) {
      if (point(args, &x, &y)) B[x][y] = 0;
      say("OK");
    } else if (!strcmp(word, "ABOUT")) {
      say("name=\"pbrain-tiny\", version=\"1.0\", author=\"Tengen tests\", country=\"none\"");
    } else if (!strcmp(word, "END")) {
      return 0;
    } else {
      say("UNKNOWN command %s", word);
    }
  }
  return 0;
}
