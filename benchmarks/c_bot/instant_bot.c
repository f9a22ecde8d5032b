/*
 * instant_bot.c: the smallest, fastest Matador bot, for measuring the referee alone.
 *
 * It speaks protocol v1 (docs/protocol.md) just enough to play a whole match and answers every
 * request at once with the first legal move, so a match between two of these measures the
 * referee's own cost per move (plus the pipes), with next to nothing spent in the bots.
 *
 *     gcc -std=c99 -O2 -o benchmarks/build/instant_bot benchmarks/c_bot/instant_bot.c
 *
 * benchmarks/referee_bench.py builds it into benchmarks/build/ (gitignored) and runs it.
 *
 * Parsing shortcuts (deliberate; this is a benchmark bot, not a model bot):
 *  - No JSON parser. Keys are found by plain substring search, which works because the referee
 *    (msgspec) writes compact JSON with the "type" tag first and the key names below never
 *    occur inside string values. Optional blanks around ':' are tolerated anyway.
 *  - The message type is taken from the first "type" key in the line: only the top level of a
 *    message to a bot has one (moves are tagged by "action", history events have no "type").
 *  - The request id is the first "id" key after "type":"request". Only the request itself has
 *    an "id" (history events and legal moves have none), so this is the request's own id.
 *  - The first legal move is copied verbatim: the text from the first '{' after "legal":[ to
 *    the first '}' after it. A move is a flat object ({"action":"draw"} or
 *    {"action":"play","tile":[3,4],"end":"left","out":4}): the only nesting is the tile array,
 *    which has no braces, and no string value contains a brace, so the first '}' closes it.
 *  - Lines of any length are read with getline (requests carry the whole history: several KB).
 *  - Unknown message types (hand_start, hand_end, later additions) are ignored; "match_end"
 *    and "error" end the program with exit code 0, and so does the end of stdin.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns a pointer just past `"key"` and the ':' that follows it (blanks skipped), searching
 * from `from`; NULL when the key is absent. */
static const char *after_key(const char *from, const char *quoted_key) {
    size_t n = strlen(quoted_key);
    const char *p = from;
    while ((p = strstr(p, quoted_key)) != NULL) {
        const char *q = p + n;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == ':') {
            q++;
            while (*q == ' ' || *q == '\t') q++;
            return q;
        }
        p += n; /* the text matched a string value, not a key: keep looking */
    }
    return NULL;
}

/* Is the value at `p` the JSON string "word"? */
static int is_string(const char *p, const char *word) {
    size_t n = strlen(word);
    return p != NULL && p[0] == '"' && strncmp(p + 1, word, n) == 0 && p[1 + n] == '"';
}

static void answer_request(const char *type_value) {
    const char *id = after_key(type_value, "\"id\"");
    const char *legal = after_key(type_value, "\"legal\"");
    if (id == NULL || legal == NULL || *legal != '[') {
        fprintf(stderr, "instant-c: a request without id or legal moves\n");
        return;
    }
    char *end;
    long long request_id = strtoll(id, &end, 10);
    if (end == id) {
        fprintf(stderr, "instant-c: a request id that is not a number\n");
        return;
    }
    const char *open = strchr(legal, '{');
    const char *close = open ? strchr(open, '}') : NULL;
    if (close == NULL) {
        fprintf(stderr, "instant-c: a request with no legal move\n");
        return;
    }
    printf("{\"type\":\"move\",\"id\":%lld,\"move\":%.*s}\n", request_id,
           (int)(close - open + 1), open);
    fflush(stdout);
}

int main(void) {
    static char out_buffer[1 << 16];
    setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer); /* one write per fflush */
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) {
        const char *type = after_key(line, "\"type\"");
        if (type == NULL) continue;
        if (is_string(type, "request")) {
            answer_request(type);
        } else if (is_string(type, "hello")) {
            fputs("{\"type\":\"ready\",\"name\":\"instant-c\"}\n", stdout);
            fflush(stdout);
        } else if (is_string(type, "match_end") || is_string(type, "error")) {
            break;
        }
    }
    free(line);
    return 0;
}
