/* first_legal.c: a complete Matador, Fives and Block bot in C99, standard library only.
 * It answers hello with ready, each request with the first element of its legal list
 * (copied as it came), ignores every other message, and exits after match_end or error.
 *
 *     gcc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -o first_legal sample_bots/first_legal.c
 *     python3 -m arena play ./first_legal "python3 sample_bots/random_bot.py"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line of stdin, any length, without its newline; NULL at the end of input. */
static char *read_line(void) {
    static char *buf = NULL;
    static size_t cap = 0;
    size_t len = 0;
    int c;
    do {
        if (len + 1 >= cap) { /* room for one more character and the final '\0' */
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            if (buf == NULL) {
                fputs("first-legal-c: out of memory\n", stderr);
                exit(1);
            }
        }
        c = getchar();
        if (c != EOF && c != '\n') buf[len++] = (char)c;
    } while (c != EOF && c != '\n');
    if (c == EOF && len == 0) return NULL;
    buf[len] = '\0';
    return buf;
}

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* Past the JSON string that starts at p (at its opening quote). */
static const char *skip_string(const char *p) {
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : p;
}

/* Past the JSON value that starts at p: a string, an object or array (with all it holds),
 * or a number, true, false or null. */
static const char *skip_value(const char *p) {
    int depth = 0;
    if (*p == '"') return skip_string(p);
    if (*p != '{' && *p != '[') {
        while (*p && !strchr(",}] \t\r\n", *p)) p++;
        return p;
    }
    do {
        if (*p == '"') {
            p = skip_string(p);
            continue;
        }
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') depth--;
        p++;
    } while (*p && depth > 0);
    return p;
}

/* Whether the JSON string at p, its escapes decoded, is the ASCII text `word`. */
static int string_is(const char *p, const char *word) {
    if (*p++ != '"') return 0;
    while (*p != '"') {
        unsigned c = (unsigned char)*p++;
        if (c == '\0') return 0;
        if (c == '\\') {
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *e = strchr(from, *p);
            if (*p == 'u') {
                char hex[5] = {0};
                if (strlen(p + 1) < 4) return 0;
                memcpy(hex, p + 1, 4);
                c = (unsigned)strtoul(hex, NULL, 16);
                p += 5;
            } else if (*p && e != NULL) {
                c = (unsigned char)to[e - from];
                p++;
            } else {
                return 0;
            }
        }
        if (*word == '\0' || c != (unsigned char)*word++) return 0;
    }
    return *word == '\0';
}

/* The value of `key` in the object at p (at its '{'), NULL when the key is absent. */
static const char *member(const char *p, const char *key) {
    p = skip_space(p + 1);
    while (*p == '"') {
        int found = string_is(p, key);
        p = skip_space(skip_string(p));
        if (*p != ':') return NULL;
        p = skip_space(p + 1);
        if (found) return p;
        p = skip_space(skip_value(p));
        if (*p != ',') return NULL;
        p = skip_space(p + 1);
    }
    return NULL;
}

int main(void) {
    const char *line;
    while ((line = read_line()) != NULL) {
        const char *msg = skip_space(line), *type;
        if (*msg != '{' || (type = member(msg, "type")) == NULL) {
            fprintf(stderr, "first-legal-c: not a message: %.80s\n", line);
        } else if (string_is(type, "hello")) {
            printf("{\"type\":\"ready\",\"name\":\"first-legal-c\"}\n");
            fflush(stdout);
        } else if (string_is(type, "request")) {
            const char *id = member(msg, "id"), *legal = member(msg, "legal"), *move;
            move = legal != NULL && *legal == '[' ? skip_space(legal + 1) : NULL;
            if (id == NULL || move == NULL || *move == ']' || *move == '\0') {
                fprintf(stderr, "first-legal-c: a request without id or legal moves\n");
                continue;
            }
            printf("{\"type\":\"move\",\"id\":%.*s,\"move\":%.*s}\n", (int)(skip_value(id) - id),
                   id, (int)(skip_value(move) - move), move);
            fflush(stdout);
        } else if (string_is(type, "match_end") || string_is(type, "error")) {
            return 0;
        } /* hand_start, hand_end, strike and unknown types: information only, no answer */
    }
    return 0;
}
