"""Enough of bash's reader to tell where a command ends: quotes, heredocs, compounds.

`BashReader` takes a command one line at a time and says whether what it has
read so far is complete, the way an interactive bash decides between running
the input and printing its continuation prompt. It never executes anything
and never raises: text bash would reject just ends up incomplete or marked
unbalanced, and bash itself gives the verdict later (`bash_syntax`).
"""
from __future__ import annotations

import re
from collections import deque

_BLANK = " \t"
_PLAIN_RUN = re.compile(r"[^ \t|&;()<>'\"\\`$#=]+")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_CLOSERS = frozenset({"fi", "done", "esac", "}"})
_WORD_MAX = 4096
# A line of plain words and blanks (no quote, operator, expansion, comment or brace) that names
# no reserved word is a complete command on its own: most lines of a workshop are like this.
_PLAIN_LINE = re.compile(r"[\w \t./:,+%@^~=*?\[\]-]+")
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until",
                       "for", "select", "function", "time", "in", "coproc", "[[", "]]"})
_OPEN_NAMES = {"'": "quote '", '"': 'quote "', "$'": "quote $'", "`": "backquote", "${": "${",
               "$((": "$((", "((": "((", "xglob": "pattern ("}


def plainly_complete(line: str) -> bool:
    """Whether a line read from a fresh BashReader would be complete without reading it char by char."""
    return _PLAIN_LINE.fullmatch(line) is not None and _RESERVED.isdisjoint(line.split())


class _Cmd:
    """A level where words and operators are read: the top, `( )`, `$( )`, `<( )`, arrays."""

    __slots__ = ("closer", "array", "struct", "word", "plain", "raw", "cmdpos", "expect",
                 "cmdname", "fdef", "case_pattern", "case_state", "dbracket", "dbdepth",
                 "after_for", "strip", "heredocs", "funckw")

    def __init__(self, closer: str | None = None, array: bool = False, fdef: bool = False,
                 shared: list[tuple[str, bool]] | None = None):
        self.closer = closer
        self.array = array
        self.fdef = fdef
        self.struct: list[str] = []  # reserved words still owed: fi, done, esac, }
        self.word: str | None = None  # the word being read (plain text only)
        self.plain = True  # no quotes or expansions in it: could be a reserved word
        self.raw: list[str] = []  # the heredoc delimiter as written
        self.cmdpos = not array  # the next word would be a command name
        self.expect: str | None = None  # "heredoc", "redir", "fname" or None
        self.cmdname = False  # the last word was a command name (for `name ()`)
        self.case_pattern = False
        self.case_state = 0  # 1 after `case`, 2 after its word, until `in`
        self.dbracket = False  # inside [[ ]]
        self.dbdepth = 0
        self.after_for = False
        self.funckw = False  # right after `function NAME`: `(` may open the body, not `()`
        self.strip = False  # the pending heredoc is <<-
        # Heredocs announced, body not started. bash reads them at the next newline of the
        # same parser: the top level and each `$( )` or `<( )` have their own list, while a
        # subshell or an array shares the one of the level that encloses it.
        self.heredocs: list[tuple[str, bool]] = [] if shared is None else shared


class _Str:
    """A quoted or expansion level: ', ", $', `, ${, $(( or ((."""

    __slots__ = ("kind", "depth", "dq")

    def __init__(self, kind: str):
        self.kind = kind
        self.depth = 0
        self.dq = False  # inside double quotes (set when pushed)


class BashReader:
    """Reads lines of one command; `complete` says whether bash would run it now."""

    def __init__(self) -> None:
        self.top = _Cmd()  # the command's own level, always the first of `levels`
        self.levels: list[_Cmd | _Str] = [self.top]
        self.bodies: deque[tuple[str, bool]] = deque()  # heredocs whose body is being read
        self.backslash = False  # the line ended in backslash-newline
        self.op_pending = False  # the last token was | && || and a command must follow
        self.need_body = False  # `name ()` or `function name` with no body yet
        self.unbalanced = False  # a closer with nothing to close (`}`, `fi`, `)`...)
        # A command-position `((` read as arithmetic until proven otherwise: its level, the
        # lines read since, and where its second `(` stands in the first of them.
        self.arith: tuple[_Str, list[str], int] | None = None
        self.replayed = False  # the current line was read again, in full, from inside
        self.read_chars = self.replay_chars = 0  # replays stay within a multiple of the input

    @property
    def complete(self) -> bool:
        top = self.top
        return (len(self.levels) == 1 and not top.struct and not top.heredocs
                and not self.bodies and not self.backslash and not self.op_pending
                and not self.need_body
                and not top.dbracket and top.expect != "heredoc")

    def why_incomplete(self) -> str:
        """What is still open, in words, for messages about a command cut short."""
        pending = self.top.heredocs
        if self.bodies or pending:
            delim = (self.bodies or pending)[0][0]
            return f"here-document never ends (wanted {delim!r})"
        for level in reversed(self.levels):
            if isinstance(level, _Str):
                return f"unclosed {_OPEN_NAMES[level.kind]}"
            if level.struct:
                return f"missing {level.struct[-1]!r}"
            if level.closer:
                return "missing ')'"
        if self.backslash or self.op_pending or self.need_body:
            return "the command goes on past the end"
        return ""

    def feed(self, line: str) -> None:
        """Read one line (without its newline)."""
        self.read_chars += len(line) + 1
        self._line(line)

    def _line(self, line: str) -> None:
        if self.bodies:
            delim, strip = self.bodies[0]
            if (line.lstrip("\t") if strip else line) == delim:
                self.bodies.popleft()
            return
        if self.arith is not None:
            self.arith[1].append(line)
        self._scan(line, 0)

    def _scan(self, line: str, i: int) -> None:
        self.backslash = False
        n = len(line)
        while i < n:
            level = self.levels[-1]
            if isinstance(level, _Cmd):
                i = self._cmd(level, line, i)
            else:
                i = self._str(level, line, i)
            if self.replayed:
                self.replayed = False
                return
        if not self.backslash:
            self._newline()

    def _may_not_be_arithmetic(self, level: _Str, line: str, second: int) -> None:
        if self.arith is None and self.replay_chars < 2 * self.read_chars:
            self.arith = (level, [line], second)

    def _not_arithmetic(self) -> None:
        """`((` or `$((` whose first `)` is not followed by `)` is no arithmetic (bash's
        parse_dparen and parse_comsub): read the text since again, as commands."""
        assert self.arith is not None  # called only while a `((` is on trial
        level, lines, start = self.arith
        self.arith = None
        self.replay_chars += sum(len(line) + 1 for line in lines)
        self.levels.pop()
        outer = self.levels[-1]
        # `$((` falls back to a command substitution (its own parser), `((` to a subshell, which
        # only starts a command, so among words (a _Cmd level).
        shared = outer.heredocs if isinstance(outer, _Cmd) else None
        self._push(_Cmd(")") if level.kind == "$((" else _Cmd(")", shared=shared))
        self._scan(lines[0], start)
        for line in lines[1:]:
            self._line(line)
        self.replayed = True

    # -- word-level helpers ---------------------------------------------------

    def _start_word(self, level: _Cmd) -> None:
        if level.word is None:
            level.word = ""
            level.plain = True
            self.need_body = False
            self.op_pending = False

    @staticmethod
    def _append(level: _Cmd, text: str) -> None:
        """Grow the word, up to a length no reserved word or name reaches: a word of a
        million pieces would otherwise be copied a million times."""
        word = level.word or ""
        if len(word) <= _WORD_MAX:
            word += text
            level.word = word[:_WORD_MAX] + "\0" if len(word) > _WORD_MAX else word  # \0 matches no keyword

    def _end_word(self, level: _Cmd) -> None:
        word = level.word
        if word is None:
            return
        level.word = None
        if level.expect is not None:
            self._end_expected_word(level)
            return
        level.funckw = False
        if level.array or self._end_word_in_test_or_case(level, word):
            return
        was_cmdpos = level.cmdpos
        level.cmdpos = False
        level.cmdname = False
        level.after_for = False
        if was_cmdpos and level.plain:
            self._command_word(level, word)

    def _end_expected_word(self, level: _Cmd) -> None:
        """The word a heredoc operator, a redirection or `function` was waiting for."""
        if level.expect == "heredoc":
            delim = re.sub(r"""\\(.)|['"]""", lambda m: m.group(1) or "", "".join(level.raw))
            level.raw = []
            level.heredocs.append((delim, level.strip))
        elif level.expect == "fname":
            level.cmdpos = True
            level.cmdname = True
            level.funckw = True
            self.need_body = True
        level.expect = None

    def _end_word_in_test_or_case(self, level: _Cmd, word: str) -> bool:
        """Inside `[[ ]]` or a case's head or patterns, where only `]]`, `in` and `esac` matter."""
        plain = level.plain
        if level.dbracket:
            if plain and word == "]]":
                level.dbracket = False
                level.cmdpos = False
        elif level.case_pattern:
            if plain and word == "esac":
                self._close(level, "esac")
                level.case_pattern = False
        elif level.case_state == 1:
            level.case_state = 2
        elif level.case_state:
            if plain and word == "in":
                level.case_state = 0
                level.case_pattern = True
        else:
            return False
        return True

    def _command_word(self, level: _Cmd, word: str) -> None:
        """A plain word where a command starts: a reserved word opens or closes a compound."""
        if word in ("if", "while", "until"):
            level.struct.append("fi" if word == "if" else "done")
            level.cmdpos = True
        elif word in ("then", "else", "elif", "do", "!", "time"):
            level.cmdpos = True
        elif word in ("for", "select"):
            level.struct.append("done")
            level.after_for = True
        elif word == "case":
            level.struct.append("esac")
            level.case_state = 1
        elif word == "{":
            level.struct.append("}")
            level.cmdpos = True
        elif word in _CLOSERS:
            self._close(level, word)
        elif word == "[[":
            level.dbracket = True
            level.dbdepth = 0
        elif word == "function":
            level.expect = "fname"
        elif not _ASSIGN.match(word):
            level.cmdname = bool(_NAME.match(word)) or "-" in word or ":" in word

    def _close(self, level: _Cmd, word: str) -> None:
        if level.struct and level.struct[-1] == word:
            level.struct.pop()
        else:
            self.unbalanced = True

    def _operator(self, level: _Cmd, continues: bool) -> None:
        """After `;`, `&`, `|`, `&&`, `||`: a new command starts."""
        self._end_word(level)
        level.cmdpos = True
        level.cmdname = level.funckw = False
        level.after_for = False
        self.need_body = False
        self.op_pending = continues

    # -- levels -----------------------------------------------------------------

    def _cmd(self, level: _Cmd, line: str, i: int) -> int:
        c = line[i]
        if c in _BLANK:
            self._end_word(level)
            return i + 1
        if c == "#" and level.word is None:
            self._end_word(level)
            return len(line)
        if level.expect == "heredoc" and level.word is None:
            level.raw = []
        handler = _CMD_CHARS.get(c)
        if handler is not None:
            return handler(self, level, line, i)
        if c == "=" and line[i + 1:i + 2] == "(" and level.word is not None and _ASSIGN.match(level.word + "="):
            return self._array(level, i)
        # Plain text, read here rather than in a handler of its own: most of a workshop is plain
        # text, and a call for each run of it made parsing a third slower.
        self._start_word(level)
        m = _PLAIN_RUN.match(line, i)
        j = m.end() if m else i + 1
        if level.expect == "heredoc":
            level.raw.append(line[i:j])
        self._append(level, line[i:j])
        return j

    def _backslash(self, level: _Cmd, line: str, i: int) -> int:
        if i + 1 >= len(line):
            # Backslash-newline vanishes before bash splits words: `;\` then `fi` is still
            # the reserved word `fi`, and a word cut in two is one word.
            self.backslash = True
            return i + 1
        self._start_word(level)
        level.plain = False
        if level.expect == "heredoc":
            level.raw.append(line[i:i + 2])
        return i + 2

    def _quote(self, level: _Cmd, line: str, i: int) -> int:
        c = line[i]
        self._start_word(level)
        level.plain = False
        if level.expect == "heredoc":
            j = line.find(c, i + 1) if c != "`" else -1
            if j > 0:
                level.raw.append(line[i:j + 1])
                return j + 1
        self._push(_Str(c))
        return i + 1

    def _dollar(self, level: _Cmd, line: str, i: int) -> int:
        self._start_word(level)
        level.plain = False
        nxt = line[i + 1:i + 3]
        if nxt.startswith("'"):
            self._push(_Str("$'"))
            return i + 2
        if nxt.startswith('"'):
            self._push(_Str('"'))
            return i + 2
        return self._expansion(line, i)

    def _angle(self, level: _Cmd, line: str, i: int) -> int:
        """`<` or `>`: a process substitution `<(` / `>(`, or a redirection."""
        if line[i + 1:i + 2] == "(":
            self._start_word(level)
            level.plain = False
            self._push(_Cmd(")"))
            return i + 2
        return self._redirect(level, line, i)

    def _pipe(self, level: _Cmd, line: str, i: int) -> int:
        self._end_word(level)  # `]]|` ends the test before the pipe
        if level.dbracket or level.case_pattern:
            return i + 1
        two = line[i:i + 2]
        self._operator(level, True)
        return i + 2 if two in ("||", "|&") else i + 1

    def _ampersand(self, level: _Cmd, line: str, i: int) -> int:
        two = line[i:i + 2]
        if two == "&&":
            self._operator(level, True)
            return i + 2
        if two == "&>":
            self._end_word(level)
            level.expect = "redir"
            return i + 3 if line[i:i + 3] == "&>>" else i + 2
        self._operator(level, False)
        return i + 1

    def _semicolon(self, level: _Cmd, line: str, i: int) -> int:
        three = line[i:i + 3]
        width = 3 if three == ";;&" else 2 if three[:2] in (";;", ";&") else 1
        self._operator(level, False)
        if width > 1 and level.struct and level.struct[-1] == "esac":
            level.case_pattern = True
        return i + width

    def _array(self, level: _Cmd, i: int) -> int:
        """`name=(` opens an array."""
        self._append(level, "=")
        level.plain = False
        self._push(_Cmd(")", array=True, shared=level.heredocs))
        return i + 2

    def _redirect(self, level: _Cmd, line: str, i: int) -> int:
        self._end_word(level)
        if level.dbracket:
            return i + 1
        self.need_body = False
        self.op_pending = False
        if line.startswith("<<<", i):
            level.expect = "redir"
            return i + 3
        if line.startswith("<<", i):
            level.expect = "heredoc"
            level.raw = []
            level.strip = line.startswith("<<-", i)
            return i + 3 if level.strip else i + 2
        level.expect = "redir"
        for op in (">>", ">&", ">|", "<&", "<>"):
            if line.startswith(op, i):
                return i + 2
        return i + 1

    def _open_paren(self, level: _Cmd, line: str, i: int) -> int:
        if level.word is not None and level.word[-1:] in ("@", "!", "?", "*", "+"):
            level.plain = False
            self._push(_Str("xglob"))
            return i + 1
        self._end_word(level)
        self.op_pending = False
        self.need_body = False
        if level.dbracket:
            level.dbdepth += 1
            return i + 1
        if level.case_pattern:
            return i + 1
        if line[i + 1:i + 2] == "(" and (level.cmdpos or level.after_for):
            arith = _Str("((")
            if not level.after_for:
                self._may_not_be_arithmetic(arith, line, i + 1)
            self._push(arith)
            return i + 2
        # `function f ( body )` has a subshell body; `function f () ...` and `f ()` have parentheses.
        fdef = level.cmdname and not (level.funckw and not line[i + 1:].lstrip().startswith(")"))
        level.cmdname = level.funckw = False
        self._push(_Cmd(")", fdef=fdef, shared=level.heredocs))
        return i + 1

    def _close_paren(self, level: _Cmd, line: str, i: int) -> int:
        self._end_word(level)
        if level.dbracket and level.dbdepth > 0:
            level.dbdepth -= 1
            return i + 1
        if level.case_pattern:
            level.case_pattern = False
            level.cmdpos = True
            return i + 1
        if level.closer == ")":
            self.levels.pop()
            outer = self.levels[-1]
            if not isinstance(outer, _Cmd):
                pass  # `$(...)` inside quotes or `${...}`: the word goes on
            elif level.fdef:
                outer.cmdpos = True
                self.need_body = True
            elif outer.word is None:
                outer.cmdpos = False
            return i + 1
        self.unbalanced = True
        return i + 1

    def _push(self, level: _Cmd | _Str) -> None:
        parent = self.levels[-1]
        if isinstance(level, _Str) and isinstance(parent, _Str):
            level.dq = parent.kind == '"' or parent.dq
        self.levels.append(level)

    def _expansion(self, line: str, i: int) -> int:
        """At a `$` that may open `$((`, `$(` or `${`: enter it, and return where to read on."""
        nxt = line[i + 1:i + 3]
        if nxt == "((":
            arith = _Str("$((")
            self._may_not_be_arithmetic(arith, line, i + 2)
            self._push(arith)
            return i + 3
        if nxt.startswith("("):
            self._push(_Cmd(")"))
            return i + 2
        if nxt.startswith("{"):
            self._push(_Str("${"))
            return i + 2
        return i + 1

    def _str(self, level: _Str, line: str, i: int) -> int:
        kind = level.kind
        if kind == "'":
            j = line.find("'", i)
            if j < 0:
                return len(line)
            self.levels.pop()
            return j + 1
        c = line[i]
        if c == "\\":
            if i + 1 >= len(line) and kind in ('"', "${", "$((", "(("):
                self.backslash = True
            return i + 2
        if kind in ("$'", "`"):
            if c == kind[-1]:
                self.levels.pop()
            return i + 1
        if c == "`":
            self._push(_Str("`"))
            return i + 1
        if c == "$":
            return self._expansion(line, i)
        if kind == '"':
            if c == '"':
                self.levels.pop()
        elif kind == "${":
            self._in_braces(c)
        elif c in "()":
            return self._in_parens(level, line, i)
        return i + 1

    def _in_braces(self, c: str) -> None:
        """A character of `${...}`: quotes open inside it, `}` closes it."""
        if c == "}":
            self.levels.pop()
        elif c == '"':
            self._push(_Str('"'))
        elif c == "'" and not self._inside_double_quotes():
            self._push(_Str("'"))

    def _in_parens(self, level: _Str, line: str, i: int) -> int:
        """A parenthesis of `$((`, `((` or an extended glob: nested, closing, or proof of no arithmetic."""
        if line[i] == "(":
            level.depth += 1
        elif level.depth:
            level.depth -= 1
        elif level.kind == "xglob":
            self.levels.pop()
        elif line[i + 1:i + 2] == ")":
            self.levels.pop()
            if self.arith is not None and self.arith[0] is level:
                self.arith = None
            return i + 2
        elif self.arith is not None and self.arith[0] is level:
            self._not_arithmetic()
            return len(line)
        return i + 1

    def _inside_double_quotes(self) -> bool:
        level = self.levels[-1]
        return isinstance(level, _Str) and level.dq

    def _newline(self) -> None:
        level = self.levels[-1]
        if not isinstance(level, _Cmd):
            return
        self._end_word(level)
        pending = level.heredocs
        if pending:
            self.bodies.extend(pending)
            pending.clear()
        if level.dbracket:
            return
        if not self.need_body and not level.case_state and level.expect is None:
            level.cmdpos = not level.array
            level.cmdname = False


# What `_cmd` does at each character that can end or change a word; any other starts or extends one.
_CMD_CHARS = {
    "\\": BashReader._backslash, "'": BashReader._quote, '"': BashReader._quote, "`": BashReader._quote,
    "$": BashReader._dollar, "<": BashReader._angle, ">": BashReader._angle, "|": BashReader._pipe,
    "&": BashReader._ampersand, ";": BashReader._semicolon, "(": BashReader._open_paren,
    ")": BashReader._close_paren,
}
