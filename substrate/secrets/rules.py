"""The rule table: one small declarative entry per credential format.

Each entry names the rule, gives its regular expression and says how a candidate is checked.
Provider rules follow each provider's documented public token format (fixed prefix, alphabet,
length); a reader can hold the pattern against that documentation. The named group ``secret``
is the part that is secret and that redaction masks; without it the whole match is.

Fields:
    name: the rule name reported in findings (several entries may share one).
    pattern: the regular expression. Provider patterns start with their literal prefix so the
        regex engine's fast literal search does the scanning.
    keywords: lower-case literals, one of which must occur in the text (or, for ``lines``
        rules, in the line) before the pattern is tried at all.
    kind: how a candidate is checked: ``token`` (placeholder and entropy checks on the part
        after the public prefix), ``assignment`` (key-name and value checks), ``stated`` (a
        password in a sentence: the same checks, and unquoted it must not be a plain word),
        ``url`` (the password of a URL), ``pem`` (a private key block), ``jwt`` /
        ``jwt_b64`` (decoded header must be JSON).
    entropy: minimum Shannon entropy, in bits per character, of the secret after its prefix.
    prefix: leading characters of the secret that are a public type marker (``ghp_``);
        ``keep_prefix`` may reveal at most these and placeholder checks skip them.
    boundary: the match may not start right after a letter, digit or ``_+/``...
    joins: ... except after one of these characters, which glue a name to a token.
    lines: only try the pattern on lines holding a keyword (plus ``window`` following lines).
    needs: characters one of which every match holds (an operator, a bracket); a text with
        none of them is not searched (``lines`` rules only).
    holds: lower-case strings one of which every match holds, as the lower-cased text shows
        it (a key's word, a lookup's opening); a keyword line window holding none of them is
        not searched (``lines`` rules only).
    starts: lower-case strings one of which begins every match, as the lower-cased text shows
        it: the pattern is then tried only where one does, not at every character of the
        keyword lines (``lines`` rules only; ``engine._led_matches``). With ``word`` set,
        every match begins a word instead (a run of letters, digits, ``_`` and the
        characters of ``word``, after a character that is none of them) holding one of
        ``starts`` at most ``reach`` characters after the word's beginning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from substrate.secrets.keynames import GLUED_NAMES


@dataclass(frozen=True)
class Rule:
    """One detection rule (see the module docstring for the meaning of each field)."""

    name: str
    pattern: str
    keywords: tuple[str, ...]
    kind: str = "token"
    entropy: float = 0.0
    prefix: int = 0
    boundary: bool = True
    joins: str = ""
    lines: bool = False
    window: int = 0
    needs: str = ""
    holds: tuple[str, ...] = ()
    starts: tuple[str, ...] = ()
    word: str | None = None
    reach: int = 0
    flags: int = 0
    description: str = field(default="", compare=False)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern, built on first use so importing the table stays cheap."""
        return re.compile(self.pattern, self.flags)


# --- building blocks for the generic key = value rules -------------------------------------
# The secret stems of key names: every generic rule's key holds one, on the match's first line.
_STEM = r"(?i:pass|pw|psw|secret|token|key|auth|cred)"
# A key token that holds a secret stem; keynames.classify_key() has the final word on it.
# (bounded: a long run of glued words would be tried from every stem in it, to its end)
_KEY = r"(?P<key>[\w.\-$@]{0,64}?" + _STEM + r"[\w.\-]{0,64})"
# A quoted value runs past its escaped quotes (\" in double quotes; '' as YAML and SQL escape a
# single quote, '\'' as a shell does), else the rest of a password after one would be left
# in clear, or all of it when the part before is too short to count. A backslash before a
# double quote that a blank, a separator or the line's end follows is a value's last
# character (a Windows folder, "C:\keys\"), not an escape: read as one, the value would run
# on into the next one and take its opening quote, and that value would go unread.
_ESCAPED_DQ = r"""\\"(?=[^\s,;)\]}])"""
_QUOTED = (
    r"""(?:"(?P<sq>(?:[^"\\\n]|\\[^"\n]|"""
    + _ESCAPED_DQ
    + r"""|\\(?="))*)"|'(?P<ss>(?:[^'\n]|''|'\\'')*)'|`(?P<sb>[^`\n]*)`)"""
)
# An unquoted value runs to whitespace, a quote, a separator or an escape sequence like \n.
# An ampersand ends it only where a query string's next parameter starts (``&user=``): a
# password may hold one, and cutting there would show the rest of it.
_BARE = r"""(?P<su>(?:[^\s"'`,;&<\\]|&(?![\w.\-]+=)|<(?!/)|\\(?![nrt"'\\]))+)"""
# (with the logical assignments: Ruby's ``@password ||= "..."``, ``??=``, ``&&=``, Perl's ``//=``)
_OPS = r"(?::::=|::=|:=|\?\?=|\?=|\|\|=|&&=|//=|\.=|\+=|=>|===|!==|==|!=|<-|=|:(?!:))"

# A value quoted with \" in a string: JSON escaped in one ("{\"user\":\"db\",\"password\":
# \"...\"}", a request body in a log line), a notebook's code line ("password = \"...\"\n" in
# .ipynb JSON), a shell's escaped quotes (read up to its next backslash)
_ESCAPED_VALUE = r"""\\"(?P<se>[^"\\\n]+)\\"|"""
# A value that is code: a call given a secret-named argument first ("creds = dict(password="
# is not a value, and the argument is assigned what follows it), or a call of a PHP object's
# member ("$this->input->post("). Both are bounded: tried at every key of a long line.
_CODE_VALUE = (
    r"[\w.]{1,64}\([ \t]*[\w.\-$@]{0,64}?" + _STEM + r"[\w.\-]{0,64}[ \t]*[=:](?!=)"
    r"|\$\w{1,64}(?:->\w{1,64}){1,8}\("
)
# A literal that a closing bracket (perhaps after a comma), the line's end or another literal
# follows: a value so bracketed is read as the literal alone
_BRACKETED = (
    r"""(?:[rRbBuUfF]{1,2})?(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`)"""
    r"""[ \t]*(?:,?[ \t]*\)|\r?\n|$|[rRbBuUfF]{0,2}["'])"""
)
# After a quoted name and a comma (env("SECRET_KEY", default="...")), a keyword argument: the
# value is a literal given as ``default``, never another argument's name (required=True)
_KWARG = r"(?:default[ \t]*=[ \t]*)?(?![A-Za-z_]\w*[ \t]*=(?![=\s,;)\]}]|$))"
_ASSIGN = (
    r"(?<![\w.\-$@])" + _KEY + r"(?:(?P<kq>[\"'`])|(?P<ke>\\\"))?"
    # a quoted key indexing a map: settings["password"] = ... (its value never begins with
    # "=": cfg["password"]==check(...) compares)
    r"(?:(?<=[\"'`])(?P<kb>\]))?"
    r"(?:\*{1,2}(?=[ \t]*:))?"  # a Markdown label in bold: **Password**: ...
    r"(?:\[\d*\])?"  # C arrays: secret[] = ...
    r"(?:\s+(?:string|String|str|\[\]byte|SecureString))?"  # Go/C# type after the name
    # type annotations: "key: str = ...", spaced, or "key: Tr0ub4dor=3x" and base64's
    # "key: VHIw...IQ==" would read as a type followed by its value
    # (Rust's: "API_KEY: &str = ...", "&'static str")
    r"(?::[ \t]*(?:&(?:'[A-Za-z_]\w*[ \t]+)?)?[A-Za-z_][\w.<>\[\]?]*"
    r"(?:[ \t]+(?==(?!=))|(?==[ \t]*[\"'`])))?"
    r"(?:[ \t]*"
    + _OPS
    + r"(?:\*{1,2}(?=[ \t]))?[ \t]*|[ \t]*(?(kq),|(?!))[ \t]*"
    + _KWARG
    + r"|[ \t]+(?=[\"'`]))"  # (**Password:** ..., the bold closed after the colon)
    r"(?:[A-Za-z_][\w.<>]*[ \t]+(?=[\"'`]))?"  # key: String "value"
    # a literal in brackets, as code wraps one to split it over lines: key = ("value"), not
    # the first of a tuple's: key = ("user", "password")
    r"(?:\([ \t]*(?=" + _BRACKETED + r"))?"
    r"(?:@|[rRbBuUfF]{1,2}(?=[\"']))?"  # string prefixes @"..", r"..", b"..", f".."
    r'(?:""(?="))?'  # a triple-quoted string: its text is read from the third quote
    r"(?:" + _ESCAPED_VALUE + _QUOTED + r"|(?(kb)(?!=))(?!" + _CODE_VALUE + r")" + _BARE + r")"
)
# A literal wrapped onto the line under its key, alone in brackets, as Black lays out a long
# one: PASSWORD = (\n    "..."\n). Not a tuple's first item: the literal ends its line.
_WRAPPED = (
    r"(?<![\w.\-$@])" + _KEY + r"[ \t]*(?::[ \t]*[A-Za-z_][\w.\[\]]*[ \t]*)?=[ \t]*\(\r?\n"
    r"[ \t]*(?:[rRbBuUfF]{1,2})?" + _QUOTED + r"[ \t]*(?:#[^\r\n]*)?(?=\r?(?:\n|$))"
)
# A whole line "key = value" (INI, .env, properties) or "key: value" (YAML, notes): the value
# runs to the end of the line, or to a " #" comment, whatever it holds (``,`` ``;`` quotes,
# spaces: a passphrase). (Taken greedily, in one pass: white space is trimmed after.)
_LINE_VALUE = (
    r"(?m:^)(?=[^\n=:]*[=:])[ \t]*(?:[-*][ \t]+)?(?:export[ \t]+)?"
    + _KEY
    + r"[ \t]*(?:=|:(?!:))[ \t]*(?P<su>[^\s\"'`#](?:[^\r\n#]|(?<![ \t])#)*)"
)
# A setting written "NAME VALUE" on a line of its own: a Dockerfile's ENV DB_PASSWORD ...,
# redis.conf's requirepass ... and masterauth ..., a .properties file's "db.password ...". The
# check wants ENV, or a password's name that no sentence starts with (``verdict._setting_name``;
# "default-key ..." in an options file names a public key).
_DIRECTIVE = (
    r"(?m:^)[ \t]*(?:[-*>][ \t]+)?(?:(?i:config)[ \t]+(?i:set)[ \t]+)?(?P<env>ENV[ \t]+)?"
    r"(?P<key>[\w.\-]{0,64}?" + _STEM + r"[\w.\-]{0,64})"
    # (not itself a setting, value="...": a value holds "=" only as base64's padding)
    r"[ \t]+(?:" + _QUOTED + r"|(?P<su>[^\s\"'`=:#][^\s\"'`=]*=*))[ \t]*(?=\r?(?:\n|$))"
)
# A connection string's password holding a comma ("Server=db;User Id=sa;Password=Xk9,mQ;"):
# its fields end at ";", so the value does too, where the next rule would end it at the comma
_CONNECTION_FIELD = (
    r";[ \t]*(?P<key>(?i:password|pwd))[ \t]*=[ \t]*"
    r"(?P<sx>[^;\"'\s]{0,128},[^;\"'\s]{0,128})(?=;|[\"']|\r?(?:\n|$))"
)
_COMPARE_REVERSED = (
    r"""(?:"(?P<sq>[^"\n]*)"|'(?P<ss>[^'\n]*)')[ \t]*(?:===|!==|==|!=)[ \t]*"""
    r"(?P<key>[\w.\-$@]{0,64}?" + _STEM + r"[\w.\-]{0,64})(?![\w.\-])"
)
# An element's value begins and ends with a character that is no blank: blanks around it have
# one reading (three would make a line of an opened element and blanks quadratic), and are
# bounded, as the value is.
_XML_BLANKS = r"[ \t]{0,200}(?:\r?\n[ \t]{0,200})?"
# A value in a CDATA section, read as the text inside it (where "<" and "&" need no escape)
_CDATA = r"<!\[CDATA\[(?P<sc>(?:(?!\]\]>)[^\n]){1,200})\]\]>"
_XML_ELEMENT = (
    r"<(?P<key>[\w:.\-]{0,64}?"
    + _STEM
    + r"[\w.\-]{0,64})(?:\s[^<>\n]*)?>"
    + _XML_BLANKS
    # (a value may begin with "<", not with the closing tag)
    + r"(?:"
    + _CDATA
    + r"|(?P<sx>(?!</)\S(?:(?:(?!</)[^\n]){0,198}?\S)?))"
    + _XML_BLANKS
    + r"</(?P=key)\s*>"
)
# An element naming its secret in an attribute: Hibernate's <property
# name="hibernate.connection.password">...</property>, <entry key="db.password"> of Java's XML
# properties, Android's <string name="api_key">
_XML_NAMED_ELEMENT = (
    r"<(?P<tag>[\w:.\-]{1,64})[ \t][^<>\n]{0,200}?(?<![\w:.\-])(?:name|key)[ \t]*=[ \t]*"
    r"(?P<aq>[\"'])(?P<key>[\w:.\-]{0,64}?"
    + _STEM
    + r"[\w.\-]{0,64})(?P=aq)[^<>\n]{0,200}>"
    + _XML_BLANKS
    + r"(?:"
    + _CDATA
    + r"|(?P<sx>[^\s<](?:[^\n<]{0,198}[^\s<])?))"
    + _XML_BLANKS
    + r"</(?P=tag)\s*>"
)
_XML_ATTRIBUTE = (
    r"(?<![\w.\-])(?P<key>[\w:.\-]{0,64}?" + _STEM + r"[\w.\-]{0,64})"
    r"(?:(?P<kq>[\"'])[ \t]+(?i:value|content)|[ \t]+[A-Za-z_][\w:\-]*)[ \t]*=[ \t]*"
    r"""(?:"(?P<sq>[^"\n]*)"|'(?P<ss>[^'\n]*)')"""
)
# (two dashes, or one before "password" or a password's name glued to what it guards, as Java's
# tools spell them: keytool -storepass, -keypass; any name after one dash would try every
# short option of a command line)
_ONE_DASH_NAMES = "|".join(sorted(GLUED_NAMES)) + "|password"
_CLI_FLAG = (
    r"(?<![\w\-\\])(?:--|-(?=(?:" + _ONE_DASH_NAMES + r")(?![\w\-])))"
    r"(?P<key>[\w\-]{0,64}?" + _STEM + r"[\w\-]{0,64})"
    # (after a blank, not another option: "--password --all-databases" asks for it, where
    # "--password -Zq8X..." gives one)
    r"(?:=|[ \t]+(?!--|-[A-Za-z][a-z]*(?:-[a-z]+)*(?=\s|$)))(?:" + _QUOTED + r"|(?P<su>[^\s\"'`]+))"
)
_SETTER = (
    r"(?<![\w$])set_?(?P<key>[A-Za-z_]{0,64}?" + _STEM + r"\w{0,64})"
    r"[ \t]*\([ \t]*" + _QUOTED + r"[ \t]*\)"
)
# A key, token or secret as notes name one, in words: "API key", "personal access token"
# (a sentence saying what a private key is tells its kind: "4096-bit RSA", "ed25519")
_KEY_OWNER = r"(?:api|access|secret|auth|client|deploy|app|bot|service|personal[ \t]+access)"
_NAMED_KEY = _KEY_OWNER + r"[ \t]+(?:key|token|secret)"
# A password stated in a sentence: "the root password is Tr0ub4dor&3", "password for db01
# was 'hunter2'", "the wifi password is: ...", asked and answered ("the db password? it is
# hunter2"); a key or token named as notes name one ("the staging API key is ...", "the bot
# token was ..."), whose value must then look random. A bare "key" is not one: "the key is
# stored" is not worth the doubt.
_STATED = (
    r"(?<![\w.\-$@])(?P<key>(?i:pass(?:word|phrase)?|passwd|pwd|pw|" + _NAMED_KEY + r"|token))"
    r"(?:[ \t]+(?i:for|of|to)[ \t]+[\w.\-@]{1,40})?"
    r"(?:(?:[ \t]+(?i:is|was|has[ \t]+been|had[ \t]+been))?[ \t]+(?i:set|changed|reset)[ \t]+to"
    r"|[ \t]*\?[ \t]+(?i:it|that)(?i:['\u2019]s|[ \t]+(?:is|was))|[ \t]+(?i:is|was):?)[ \t]+"
    r"(?:" + _QUOTED + r"|(?P<su>[^\s\"'`,;<]+))"
)
# A label in notes, its key perhaps in words and said of something: "API key for staging:
# ...", "password for the VPN: ...", "**Password (prod):** ...". (Not "Password - ...": the
# labelled corpus takes a dash for no assignment.)
_LABEL = (
    # (the look-ahead at the first letters lets a search pass over other places quickly)
    r"(?=[AaBbCcDdPpSs])(?<![\w.\-$@])(?P<key>(?i:(?:private|"
    + _KEY_OWNER
    + r")[ \t]+(?:key|token|secret)|pass(?:word|phrase)|passwd|pw))"
    r"(?:[ \t]+(?i:for|of|on|to)(?:[ \t]+[\w.\-@/'\u2019]{1,40}){1,6})?"
    r"(?:[ \t]*\([^()\n]{1,30}\))?"
    r"(?:\*{1,3})?[ \t]*:(?!:)(?:\*{1,3})?[ \t]*"
)
_LABELLED = _LABEL + r"(?:" + _QUOTED + r"|\*{1,3}(?P<sx>[^\s*]+)\*{1,3}|(?P<su>[^\s\"'`*]\S*))"
# The same label closing its line, its value alone on the next line or the one after a blank
# line, perhaps indented or quoted as code: "The staging password:" then "`Kq7mZ2vL9x`". Words
# there, quoted or not, are an instruction or a command ("`pass show db`"), not a value.
_LABEL_ABOVE = (
    _LABEL + r"\r?\n(?:[ \t]*\r?\n)?[ \t]*"
    r"""(?:"(?P<sq>[^"\s]+)"|'(?P<ss>[^'\s]+)'|`(?P<sb>[^`\s]+)`"""
    r"""|(?P<su>[^\s"'`*#|>\-]\S*))[ \t]*(?=\r?(?:\n|$))"""
)
# A user and a password given together under one name: "creds: deploy / Vb8#qL2mXz7".
_USER_SLASH_PASSWORD = (
    r"(?=[CcUuLl])(?<![\w.\-$@])(?P<key>(?i:creds?|credentials"
    r"|(?:user(?:name)?|login)[ \t]*/[ \t]*pass(?:word)?))[ \t]*[:=][ \t]*"
    r"[^\s/:]{1,64}[ \t]*/[ \t]*(?:" + _QUOTED + r"|(?P<su>[^\s\"'`]\S*))"
)
# A literal given as the fallback of a lookup: the value used wherever the variable is unset,
# in compose files, charts and code alike. First the lookup, then the key and its fallback
# ({{ db_password | default('...') }}, process.env.API_KEY || "...", ... ?? '...',
# os.environ.get("DB_PASSWORD") or "...", ENV["API_KEY"] || "..."): anchored on the lookup,
# so that keyword lines without one are passed over quickly ...
_FALLBACK_AFTER = (
    r"(?:\{\{-?[ \t]*|\benv\.|\benviron(?:\.get)?[ \t]*[(\[][ \t]*[\"']"
    r"|\bgetenv[ \t]*\([ \t]*[\"']|(?<![A-Za-z])ENV\[[ \t]*[\"'])"
    + _KEY
    + r"(?![\w.\-])[\"'`\])]{0,3}[ \t]*"
    r"(?:\|\||\?\?|(?<!\w)or\b|\|[ \t]*default\b[ \t]*\(?)[ \t]*" + _QUOTED
)
# ... or the lookup around the key: ${POSTGRES_PASSWORD:-...}, os.environ.get("DB_PASSWORD",
# "..."), getenv, ENV.fetch("DB_PASSWORD") { "..." }.
_FALLBACK_AROUND = (
    r"(?:\$\{|\b(?:get|getenv|fetch|getProperty)[ \t]*\([ \t]*[\"'])"
    + _KEY
    + r"(?:[\"'][ \t]*(?:,|\)[ \t]*\{)[ \t]*(?=[\"'`])|:?[-=](?=[^}\s\"'`]+\}))"
    r"(?:" + _QUOTED + r"|(?P<su>[^}\s\"'`${]+)(?=\}))"  # not a nested ${OTHER}
)
# A password written right after the word, with no verb ("connect with password Hx7!qLz93p",
# a .netrc's "login me password Hx7!qLz93p"): only a value that mixes lower and upper case,
# digits and symbols, as no word of prose does ("password reset", "password-protected").
_STATED_BARE = (
    r"(?<![\w.\-$@])(?P<key>(?i:password|passphrase|passwd|pwd))[ \t]+"  # not "pass" (a verb)
    r"(?P<su>[^\s\"'`,;<=\-][^\s\"'`,;<=]{7,79})(?![^\s,;])"  # not an option or a setting
)
# A YAML block scalar: the value on the line under "password: |" (or ">-"), indented. Found
# from the block's mark, whose key the check reads back (``verdict._key_before_colon``): a
# pattern that starts with the key would be tried at every character of every keyword line.
_YAML_BLOCK = (
    r":[ \t]*[|>][-+]?[1-9]?[-+]?[ \t]*\r?\n(?P<indent>[ \t]+)"
    r"(?P<su>[^\s\"'`#][^\r\n]*(?:\r?\n(?P=indent)[^\r\n]+)*)"  # every line of the block
)
# A YAML key whose plain or quoted value stands alone on the line under it, indented:
# "password:" then "  Kq7mZ2vL9x". Not a nested mapping ("  min_length: 8"), a list item, an
# anchor, alias, tag or flow collection, nor a comment; the check reads the key back and wants
# nothing but it on its line (``verdict._bare_key_above``), so prose ("reset the password:")
# is passed over.
_YAML_NEXT_LINE = (
    # (a comment after the key, of at most 2,000 characters: a long line of "key: #" is not
    # read to its end from every colon)
    r":(?:[ \t]+#[^\r\n]{0,2000})?[ \t]*\r?\n(?P<indent>[ \t]+)(?!-(?:[ \t]|\r?(?:\n|$)))"
    r"(?:" + _QUOTED + r"|(?P<su>[^\s\"'`#|>&*!%@{\[][^\s]*))"
    r"[ \t]*(?=(?:[ \t]#[^\r\n]*)?\r?(?:\n|$))"  # a comment may close the line
)
# A .netrc entry: "machine HOST login USER password PASSWORD" (or "default ..."), or "password
# PASSWORD" on a line of its own under a line that opens with "machine" or "login". The check
# reads what comes before "password" (``verdict._netrc_entry``).
_NETRC = r"password(?<![\w.\-]password)[ \t]+(?:" + _QUOTED + r"|(?P<su>[^\s\"'`]\S*))"
# What sets a value after its name: an operator among ``ops`` with blanks around it, or
# blanks alone. Blanks are taken whole (possessively): a run of them before no value is not
# tried again split in every way, a cost growing with the square of its length.
_ASSIGNED_WITH = r"(?:\s*+(?:{ops})\s*+|\s++)"
# A table row naming a key in one cell and giving its value in the next (Markdown, wikis):
# "| DB_PASSWORD | Wm4#tR8yUe |" or "| db password | Wm4#tR8yUe |" (a label of up to four
# words, the secret's stem in the last, none of the others a word that makes it a phrase
# about the secret: "| Scope of token | repo |"), the key perhaps in code or bold; the value
# fills its cell.
_PHRASE_WORDS = r"(?i:of|the|for|to|is|are|a|an|in|on|at|by|with|from|and|or|per|its|their)"
_LABEL_WORD = r"(?!" + _PHRASE_WORDS + r" )[\w.\-$@]{1,64} "
_CELL_KEY = r"(?P<key>(?:" + _LABEL_WORD + r"){0,3}[\w.\-$@]{0,64}?" + _STEM + r"[\w.\-]{0,64})"
_TABLE_CELLS = (
    r"\|[ \t]*(?:`|\*\*)?" + _CELL_KEY + r"(?:`|\*\*)?[ \t]*\|[ \t]*"
    r"(?:" + _QUOTED + r"|(?P<su>[^\s|\"'`]+))[ \t]*(?=\||\r?\n|$)"
)
# A line of two tab-separated columns, a key and its value (a TSV export, a pasted sheet).
_TAB_COLUMNS = (
    r"(?<![^\n])[ \t]*" + _KEY + r"\t+(?:" + _QUOTED + r"|(?P<su>[^\s\"'`]+))[ \t]*(?=\r?\n|$)"
)
# An entry naming its value, as Kubernetes env lists and CloudFormation parameters write
# settings: "name: DB_PASSWORD" then "value: ..." (on the next line in YAML), or
# {"ParameterKey": "DbPassword", "ParameterValue": "..."}. The gate judges such entries of a
# stored payload alike (``secrets.fields``).
_NAMED_VALUE = (
    r"""(?<![\w.\-])["']?(?i:(?:parameter|option)?(?:name|key))["']?[ \t]*[:=][ \t]*["']?"""
    + _KEY
    # (blanks taken whole, possessively: a run of them before no value is not tried again
    # split in every way, a cost growing with the square of its length)
    + r"""["']?[ \t]*+(?:,[ \t]*+)?(?:\r?\n[ \t]*+(?:-[ \t]*+)?)?"""
    r"""["']?(?i:(?:parameter)?value)["']?[ \t]*[:=][ \t]*"""
    r"(?:" + _QUOTED + r"|" + _BARE + r")"
)
_GENERIC_WORDS = ("pass", "pw", "psw", "secret", "token", "key", "auth", "cred")


def _generic(
    pattern: str,
    needs: str,
    description: str,
    window: int = 0,
    kind: str = "assignment",
    holds: tuple[str, ...] = (),
    starts: tuple[str, ...] = (),
    word: str | None = None,
    reach: int = 0,
) -> Rule:
    """A generic key = value rule: keyed on the secret stems, tried on keyword lines only, and
    only where the characters it ``needs`` occur (and, in a window, one of the strings every
    match ``holds``, where a match ``starts``)."""
    return Rule(
        "sensitive_assignment",
        pattern,
        _GENERIC_WORDS,
        kind=kind,
        lines=True,
        window=window,
        needs=needs,
        holds=holds,
        starts=starts,
        word=word,
        reach=reach,
        boundary=False,
        description=description,
    )


_PEM_BEGIN = r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_B64 = r"[A-Za-z0-9+/]"
# The longest key block looked for: an armored PGP key with several subkeys runs past 20 KB.
MAX_KEY_BLOCK = 65536
# Armor header lines ("Version: ...", "Proc-Type: ...") and the blank line that may follow them
# before a key's base64 body
_ARMOR_HEADERS = r"(?:\r?\n[A-Za-z][\w-]{0,30}: [^\r\n]{0,200})*(?:\r?\n[ \t]*(?=\r?\n))?"

# Private keys come first: a key block may contain strings other rules would claim.
KEY_RULES: tuple[Rule, ...] = (
    Rule(
        "gcp_service_account_key",
        r'"private_key"\s*:\s*"(?P<secret>' + _PEM_BEGIN + r'[^"]{20,})"',
        ('"private_key"',),
        kind="pem",
        boundary=False,
        description="Google Cloud service-account JSON: the PEM key in its private_key field",
    ),
    Rule(
        "private_key_block",
        # the body holds no other BEGIN line: a text of BEGIN lines with no END costs a scan
        # to the next one from each, not one to the end of the text (a square of its length)
        _PEM_BEGIN + rf"(?P<secret>(?:(?!-----BEGIN)[\s\S]){{1,{MAX_KEY_BLOCK}}}?)" + _PEM_END,
        ("-----begin",),
        kind="pem",
        boundary=False,
        description="PEM/OpenSSH/PGP private key block (the body between BEGIN and END)",
    ),
    Rule(
        "private_key_block",
        _PEM_BEGIN
        + _ARMOR_HEADERS
        # the body's lines (or "\n" escapes), or its runs on the header's line (a key pasted
        # flattened); the white space after the last run is masked with it
        + r"(?P<secret>(?:(?:[ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]*|[ \t]+)"
        + _B64
        + r"{16,}=*)*[ \t]*)",
        ("-----begin",),
        kind="pem",
        boundary=False,
        description="A private key header whose END line is missing (a truncated key, or one "
        "too long for the block rule)",
    ),
    Rule(
        "private_key_block",
        # its first bytes name it: DER of a PKCS#8 or PKCS#1 RSA key, a PKCS#8 EC or Ed25519
        # key, a SEC1 EC key (P-256, P-384), or "openssh-key-v1" (a public key's differ)
        r"(?<![A-Za-z0-9+/])(?P<secret>(?P<lead>MII[A-Za-z0-9+/]{2}[AQgw]IBA"
        r"(?:DANBgkqhkiG9w0BAQEFAASC|AK[CB])|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0w"
        r"|MHcCAQEEI|MIGkAgEBBD|MC4CAQAwBQYDK2VwBCIEI|b3BlbnNzaC1rZXktdjEAAAAA)"
        + _B64
        + r"{20,}=*(?=[ \t]*(?:\r?\n|$))"
        # the lines after it, to one that is not base64 alone
        + r"(?:[ \t]*\r?\n[ \t]*"
        + _B64
        + r"{4,}=*(?=[ \t]*(?:\r?\n|$))){0,1000})",
        (
            "ibadanbgkqhkig9w0baqefaasc",
            "ibaakc",
            "ibaakb",
            "mighageambmgbyqgsm49",
            "mhccaqeei",
            "migkagebbd",
            "mc4caqawbqydk2vwbciei",
            "b3blbnnzac1rzxktdjeaaaaa",
        ),
        kind="key_body",
        boundary=False,
        description="A private key's base64 body without its BEGIN and END lines",
    ),
    Rule(
        "private_key_block",
        r"Private-Lines: \d+(?P<secret>(?:\r?\n" + _B64 + r"{8,}=*)+)",
        ("private-lines:",),
        kind="pem",
        boundary=False,
        description="PuTTY .ppk private key lines",
    ),
)

# (the scan reads table columns headed by a secret's name where this rule is tried:
# ``secrets.pipetables``)
TABLE_CELLS_RULE = _generic(_TABLE_CELLS, "|", "| password | literal |, a table row")

# The values under data: and stringData: of a Kubernetes manifest of kind Secret: the scan
# reads the document's maps where this rule is tried (``secrets.kubernetes``); the pattern is
# the kind's line, which every such document holds.
KUBERNETES_SECRET_RULE = Rule(
    "kubernetes_secret",
    r"(?im)^\ufeff?[ \t]*(?:-[ \t]+)?kind:[ \t]*([\"']?)secret\1[ \t]*(?:#[^\n]*)?\r?$",
    ("secret",),
    kind="document",
    boundary=False,
    description="A value under data: (base64) or stringData: in a Kubernetes Secret manifest",
)

# A CSV table written into a text ("id,user,password" then "1,alice,..."): read by its
# header's names where the scan tries this rule (``secrets.tables.embedded_table_hits``); the
# pattern matches nothing.
CSV_COLUMNS_RULE = Rule(
    "sensitive_assignment",
    r"(?!)",
    _GENERIC_WORDS,
    kind="document",
    lines=True,
    needs=",;",
    boundary=False,
    description="id,user,password then 1,alice,literal: a CSV table in a text",
)

# A password given by position, after its user, to what code calls with both: requests'
# auth=("user", "..."), HTTPBasicAuth("user", "..."), NetworkCredential, SetBasicAuth, and
# the login("user", "...") of smtplib, ftplib and imaplib; and a database's address, user and
# password given to JDBC's getConnection, PHP's PDO and mysqli, Python's MySQL drivers. The
# user may be a name or a literal; the password is the literal after it.
_USER_ARGUMENT = (
    r"""(?:"(?P<user>[^"\n]{0,128})"|'(?P<us>[^'\n]{0,128})'"""
    r"""|\$?[A-Za-z_][\w.]{0,64}(?:->\w{1,64}){0,4})"""
)
_ADDRESS_ARGUMENT = (
    r"""(?:"[^"\n]{0,256}"|'[^'\n]{0,256}'"""
    r"""|\$?[A-Za-z_][\w.]{0,64}(?:->\w{1,64}|\[[^\]\n]{0,64}\]){0,4})"""
)
_PASSWORD_ARGUMENT = (
    r"(?:(?<![\w])(?i:auth)[ \t]*=[ \t]*\("
    r"|(?<![\w])(?:HTTP(?:Basic|Digest|Proxy)Auth|BasicAuth|NetworkCredential"
    r"|UsernamePasswordCredentials|PasswordAuthentication|SetBasicAuth)[ \t]*\("
    r"|\.login[ \t]*\("
    r"|(?:\bgetConnection|\bnew[ \t]+\\?(?:PDO|mysqli)|(?<![\w$])mysqli_connect"
    r"|\b(?:pymysql|MySQLdb)\.connect)[ \t]*\([ \t]*"
    + _ADDRESS_ARGUMENT
    + r"[ \t]*,)[ \t]*"
    + _USER_ARGUMENT
    + r"""[ \t]*,[ \t]*[rRuU]?(?:"(?P<sq>[^"\\\n]{1,256})"|'(?P<ss>[^'\\\n]{1,256})')[ \t]*[,)]"""
)

# sudo and its options, before a command
_SUDO = r"(?:sudo(?:[ \t]+-\w+)*[ \t]+)?"
# A Wi-Fi or IPsec pre-shared key: wpa_supplicant's psk="..." (hostapd's wpa_psk=...), and
# ipsec.secrets' ": PSK "..."". Only so written: PSK as a stem would find every TLS cipher list
# and changelog that names it ("PSK:-PSK:HIGH", "psk.c:275:21").
_PRE_SHARED_KEY = (
    r"(?:(?<![\w.\-])(?i:(?:wpa_)?psk)[ \t]*=[ \t]*|:[ \t]*PSK[ \t]+(?=[\"']))"
    r"(?:" + _QUOTED + r"|(?P<su>[^\s\"'`#;]+))"
)
# A shell command's words, up to its end: a quoted word may hold ; & |, and a \ at a line's
# end goes on to the next
_SHELL_WORDS = r"""(?:[^\n|;&'"\\]|'[^'\n]*'|"[^"\n]*"|\\\r?\n|\\.)"""
# A password given to a command: quoted (in single quotes, '' is SQL's escaped quote), or a
# bare word of the command line
_COMMAND_VALUE = (
    r"""(?:"(?P<sq>[^"\n]{4,128})"|'(?P<ss>(?:[^'\n]|''){4,128})'"""
    # (unquoted: not a template's hole that white space inside it cut, as in {{kata sandi}})
    r"|(?!\{\{)(?P<su>(?:[^\s\"'`<>|;&]|&(?![&\s])){4,128}))"
)

# Credentials known only by their context (key names, URLs, headers), tried after the
# provider formats so a recognised token keeps its specific name.
CONTEXT_RULES: tuple[Rule, ...] = (
    Rule(
        "password_argument",
        _PASSWORD_ARGUMENT,
        ("auth", "credential", ".login", "getconnection", "pdo", "mysqli", "mysql"),
        kind="argument",
        lines=True,
        needs=",",
        boundary=False,
        description='a password given after its user: auth=("user", "..."), .login(user, "..."), '
        'getConnection(url, user, "...")',
    ),
    Rule(
        "aws_secret_key",
        # the name may be written as words: "AWS secret key: ...", as `aws configure` asks
        # for it ("AWS Secret Access Key [None]: ..."), or be given as an argument after it
        r"(?i:(?:aws|amazon)[\w.\- ]{0,30}?(?:secret|private)[\w.\- ]{0,20}?key"
        r"|secret[_\-. ]?access[_\-. ]?key)[\w.\-]{0,10}(?:[ \t]*\[[^\]\r\n]{0,40}\])?"
        r"[\"'`]?" + _ASSIGNED_WITH.format(ops="=>|:=|[:=,]") + r"[\"'`]?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        ("aws", "amazon", "secret_access", "secretaccess", "secret-access", "secret access"),
        entropy=3.5,
        lines=True,
        window=1,  # the value may follow on the next line
        description="AWS secret access key (40 base64 characters) assigned to a secret key name",
    ),
    Rule(
        "aws_secret_key",
        # a key id and its secret written side by side: "AKIA...:<secret>", two arguments,
        # a JSON entry, "key AKIA... and secret <secret>"; or the secret on the next line, as
        # a note lists the pair (a blank line between)
        r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])"
        r"[^\r\n]{0,40}?(?:\r?\n(?:[ \t]*\r?\n)?[^\r\n]{0,40}?)?"
        # base64 of random bytes has both cases: a hex digest (a commit id) beside the key
        # id is no secret
        r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("akia", "asia", "abia", "acca", "a3t"),
        entropy=3.5,
        lines=True,
        window=2,
        description="AWS secret access key (40 base64 characters) next to its access key id",
    ),
    Rule(
        "heroku_key",
        # the legacy key is a UUID, known only by the name before it ("HEROKU_API_KEY=...",
        # "heroku api key: ...")
        r"(?i:heroku)[\w.\- ]{0,20}?(?i:key|token|secret|auth)[\w.\-]{0,10}[\"'`]?"
        + _ASSIGNED_WITH.format(ops="=>|:=|[:=]")
        + r"[\"'`]?(?P<secret>[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12})(?![\w-])",
        ("heroku",),
        entropy=3.0,
        lines=True,
        description="Heroku API key (legacy: a UUID) assigned to a Heroku key name",
    ),
    Rule(
        "npm_token",
        r"//[\w.\-]+(?::\d+)?(?:/[\w.\-]*)*/:_(?:authToken|auth|password)\s*=\s*"
        r"(?P<secret>[^\s\"'`]+)",
        ("_auth", "_password"),
        kind="credential",
        boundary=False,
        description="npm registry credentials in .npmrc (//registry/:_authToken=..., _auth, "
        "_password)",
    ),
    Rule(
        "jwt",
        # from the start of a run only: tried from each "eyJ" inside one ("eyJeyJ…"), the
        # search would read the rest of the run each time
        r"(?<![\w\-])eyJ[\w\-]{10,}={0,2}\.[\w\-]{10,}={0,2}(?:\.[\w\-]{10,}={0,2})?(?![\w\-.])",
        ("eyj",),
        kind="jwt",
        entropy=3.0,
        description="JSON Web Token: base64url JSON header . payload [. signature]",
    ),
    Rule(
        "jwt",
        r"ZXlK" + _B64 + r"{40,}={0,2}",
        ("zxlk",),
        kind="jwt_b64",
        entropy=3.5,
        description="A JSON Web Token that was base64-encoded once more",
    ),
    Rule(
        "url_credentials",
        # with its scheme, or without one ("//admin:pw@db/app")
        r"(?:(?<![\w+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,20}:|(?<![\w:/]))//[^\s:/@\"'<>]{0,64}:"
        # a password may hold @: clients end it at the last @ before the host, as this does
        r"(?P<secret>[^\s:/\"'<>]{1,128})@[\w.\-\[\]%]+",
        ("//",),
        kind="url",
        lines=True,
        boundary=False,
        needs="@",  # not tried on every comment line
        description="user:password@ in a URL or connection string (only the password masked)",
    ),
    Rule(
        "url_credentials",
        r"jdbc:oracle:thin:[\w.\-$]+/(?P<secret>[^\s@/\"']+)@",
        ("jdbc:oracle",),
        kind="url",
        lines=True,
        boundary=False,
        description="Oracle JDBC URL user/password@host",
    ),
    Rule(
        "basic_auth_header",
        # (base64 of "user:password" holds a capital or a digit: "Basic authentication" no)
        r"(?i:authorization)[\"']?(?:\s*[:=]|[ \t]+(?=[\"']))\s*[\"']?(?i:basic)\s+"
        r"(?=[a-z+/]*[A-Z0-9])(?P<secret>" + _B64 + r"{6,}={0,2})",
        ("basic", "authorization"),  # either line of a header split after its name
        lines=True,
        window=1,  # the value may follow on the next line
        entropy=2.5,
        boundary=False,
        description="HTTP Authorization: Basic header with base64 user:password",
    ),
    Rule(
        "bearer_token",
        r"Bearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)(?![\w\-.~+/=])",
        ("bearer",),
        lines=True,
        window=1,  # the value may follow on the next line
        entropy=3.0,
        description="OAuth bearer token in an Authorization header or code",
    ),
    Rule(
        "authorization_header",
        # the schemes that carry a token: token (GitHub), SSWS (Okta), Bot, Splunk, GenieKey,
        # Api-Key... (not any word: "Authorization: see docs/security/authorization.md")
        r"(?i:authorization)[\"']?\s*:\s*[\"']?(?i:(?:token|bearer|oauth|jwt|ssws|bot|splunk"
        r"|geniekey|api-?key|api-?token|key|dpop|zoho-oauthtoken|klaviyo-api-key|hmac"
        r"|sharedaccesssignature)[ \t]+)?"
        r"(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)(?![\w\-.~+/=])",
        ("authorization",),
        lines=True,
        window=1,  # the value may follow on the next line
        entropy=3.0,
        boundary=False,
        kind="header_token",
        description="A token in an Authorization header, after its scheme if any",
    ),
    Rule(
        "vault_unseal_key",
        # as `vault operator init` prints them
        r"(?i:(?:unseal|recovery)[ \t]+key)(?:[ \t]+\d{1,2})?[ \t]*:[ \t]*"
        # base64 of random bytes: holding a digit, and no path
        r"(?P<secret>(?!/)(?=[A-Za-z0-9+/]*\d)" + _B64 + r"{20,}={0,2})(?![A-Za-z0-9+/=.])",
        ("unseal key", "recovery key"),
        lines=True,
        entropy=3.5,
        boundary=False,
        description="Vault unseal or recovery key (Unseal Key 1: ...)",
    ),
    Rule(
        "basic_auth_credentials",
        # (the colon of a mask the gate wrote is no separator: "-u }[REDACTED:slack_token]")
        r"(?<![\w\-])(?:-u|--user)[ \t]+[\"']?(?P<user>[^\s:\"'$<>]{0,64})(?<!\[REDACTED):"
        r"[\"']?"
        r"(?P<secret>[^\s\"'<>]{3,128})",
        ("-u ", "--user"),
        kind="user_option",
        lines=True,
        boundary=False,
        description="user:password passed to curl -u / --user",
    ),
    Rule(
        "command_line_password",
        # mysql -pSECRET (glued: "-p NAME" asks, and NAME is a database), sshpass -p SECRET,
        # docker or podman login -p SECRET, redis-cli -a SECRET
        # the tool as a command (not "/var/lib/mysql"; in quotes too, as code runs one), its
        # flag within the same command
        # (sqlcmd by its path too: /opt/mssql-tools/bin/sqlcmd, as its documentation runs it)
        r"(?:(?<![^\s`$(\"';&|])|(?<=[/\\])(?=(?i:sqlcmd|osql)))"
        # (or its words listed, as a compose file's healthcheck runs it: ["CMD", "mysqladmin",
        # "ping", "-u", "root", "-pSECRET"])
        r"(?:(?:mysql|mysqldump|mysqladmin|mariadb)(?=[ \t]|(?P<listed>[\"'],))"
        r"[^\n|;&]{0,200}?[ \t](?(listed)[\"'])-p"
        r"|(?:sshpass|(?:docker|podman|az)[ \t]+login)(?=[ \t])[^\n|;&]{0,200}?[ \t]-p[ \t]+"
        # gh secret set NAME --body SECRET; rabbitmqctl add_user USER SECRET (change_password)
        r"|gh[ \t]+secret[ \t]+set(?=[ \t])[^\n|;&]{0,200}?[ \t](?:-b|--body)(?:[ \t]+|=)"
        r"|rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+[^\s\-][^\s]*[ \t]+"
        # ssh-keygen -N NEW (and -P OLD) passphrase
        r"|ssh-keygen(?=[ \t])[^\n|;&]{0,200}?[ \t]-[NP][ \t]+"
        r"|redis-cli(?=[ \t])[^\n|;&]{0,200}?[ \t]-a[ \t]+"
        # sqlcmd -P SECRET (SQL Server), ldapsearch -w SECRET (OpenLDAP's tools: -W asks)
        r"|(?i:sqlcmd|osql)(?:\.exe)?(?=[ \t])[^\n|;&]{0,200}?[ \t]-P[ \t]*"
        r"|ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop)(?=[ \t])"
        r"[^\n|;&]{0,200}?[ \t]-w[ \t]*"
        # zip -P SECRET, unzip -P SECRET, among the options that follow the tool or its
        # archive (each way holds its keyword, "zip -"); 7z -pSECRET (glued: "-p" alone
        # asks); openssl enc (or a cipher command) -k SECRET, a passphrase, or -K HEX, the key
        r"|(?:un)?zip (?:[^\s|;&]{0,200}zip )?(?:-[^\n|;&]{0,200}?[ \t])?-P[ \t]+"
        r"|7z[ar]?(?=[ \t])[^\n|;&]{0,200}?[ \t]-p"
        r"|openssl[ \t]+(?:enc|aes|des|bf|camellia|chacha20|rc[245]|cast5?|seed|sm4|aria|idea)"
        r"[\w\-]*(?=[ \t])[^\n|;&]{0,200}?[ \t]-[kK][ \t]+)" + _COMMAND_VALUE,
        # (the screen flags every text holding a keyword: "docker" alone is in most of a
        # container tool's pages)
        (
            "mysql",
            "mariadb",
            "sshpass",
            "docker login",
            "az login",
            "gh secret",
            "rabbitmqctl",
            "podman login",
            "redis-cli",
            "ssh-keygen",
            "sqlcmd",
            "osql",
            "ldap",
            "zip -",  # (not "zip": most texts that hold it name a .zip file)
            "7z",
            "openssl",
        ),
        kind="credential",
        lines=True,
        boundary=False,
        description="a password passed on a command line: mysql -p, sshpass -p, login -p, "
        "ssh-keygen -N, gh secret set --body, rabbitmqctl add_user, sqlcmd -P, ldapsearch -w, "
        "zip -P, 7z -p, openssl -k",
    ),
    Rule(
        "command_line_password",
        # the second of ssh-keygen's passphrases: ssh-keygen -p -P OLD -N NEW (the rule above
        # takes the first, and a match holds one secret)
        r"(?<![^\s`$(\"';&|])ssh-keygen(?=[ \t])[^\n|;&]{0,200}?[ \t]-[NP][ \t]+\S+"
        r"[^\n|;&]{0,200}?[ \t]-[NP][ \t]+" + _COMMAND_VALUE,
        ("ssh-keygen",),
        kind="credential",
        lines=True,
        boundary=False,
        description="the second passphrase of ssh-keygen -p -P OLD -N NEW",
    ),
    Rule(
        "command_line_password",
        # a password piped to the tool that sets it: echo "user:SECRET" | chpasswd, echo
        # SECRET | passwd --stdin user; or that reads it so: echo SECRET | sudo -S ..., echo
        # SECRET | docker login --password-stdin (podman, helm registry login)
        r"(?<![^\s`$(\"'])echo[ \t]+(?:-[ne]{1,2}[ \t]+)?(?P<q>[\"']?)"
        # (a user before the password only for chpasswd: passwd --stdin reads the whole line)
        r"(?:[^\s:\"'|]{1,64}:(?=[^|\n]{0,200}\|[ \t]*" + _SUDO + r"[\w/.]*chpasswd))?"
        r"(?P<secret>[^\s\"'|]{4,128})(?P=q)[ \t]*\|[ \t]*"
        r"(?:" + _SUDO + r"(?:/[\w/.]*/)?(?:chpasswd|passwd[ \t]+(?:[\w.\-]{1,32}[ \t]+)?--stdin)"
        r"|sudo(?:[ \t]+-[A-Za-z]+(?:[ \t]+[^\s\-]\S*)?)*?[ \t]+(?:-[A-Za-z]*S|--stdin)"
        r"|[^\n|;&]{0,200}?[ \t]--password-stdin)"
        r"(?![\w\-])",
        ("passwd", "| sudo", "|sudo", "password-stdin"),
        kind="credential",
        lines=True,
        starts=("echo",),
        boundary=False,
        description="a password piped to chpasswd, passwd --stdin, sudo -S or a login's "
        '--password-stdin: echo "user:..." | chpasswd',
    ),
    Rule(
        "command_line_password",
        # SQL's CREATE USER (ALTER USER, GRANT) ... IDENTIFIED [WITH plugin] BY '...' and SET
        # PASSWORD; wpa_passphrase SSID PASSPHRASE; htpasswd -b [FILE]
        # USER PASSWORD (the last argument); smbclient -U user%PASSWORD; mongosh -p PASSWORD
        r"(?:(?i:\b(?:user|grant)\b[^\n;]{0,200}?\bidentified[ \t]+"
        r"(?:with[ \t]+(?P<pq>[\"'`]?)\w+(?P=pq)[ \t]+)?by)"
        r"[ \t]+(?=[\"'])"
        # MySQL's SET PASSWORD FOR user = '...', or = PASSWORD('...') as older ones wrote it
        # (SET PASSWORD = '...' is a key and its value, the generic rule's)
        r"|(?i:\bset[ \t]+password[ \t]+for\b[^\n;=]{0,200}=[ \t]*(?:password[ \t]*\([ \t]*)?"
        r"|\bset[ \t]+password[ \t]*=[ \t]*password[ \t]*\([ \t]*)(?=[\"'])"
        r"|(?<![^\s`$(\"'])(?:"
        r"htpasswd[ \t]+(?=[^\n|;&]{0,200}-[a-zA-Z]*b)(?:-[a-zA-Z]+[ \t]+)+(?:[^\s\-]\S*[ \t]+)?"
        r"[^\s\-]\S*[ \t]+(?=[^\s|;&]+[ \t]*(?:$|[\r\n|;&]))"
        r"|smbclient(?=[ \t])[^\n|;&]{0,200}?[ \t](?:-U|--user=?)[ \t]*[^\s%'\"]+%"
        r"|wpa_passphrase[ \t]+(?:[\"'][^\"'\n]{1,32}[\"']|[^\s\"'|;&]{1,32})[ \t]+"
        r"|mongo(?:sh)?(?=[ \t])[^\n|;&]{0,200}?[ \t](?:-p|--password)[ \t]+))" + _COMMAND_VALUE,
        (
            "identified by",
            "identified with",
            "set password",
            "htpasswd",
            "smbclient",
            "mongo",
            "wpa_passphrase",
        ),
        kind="credential",
        lines=True,
        boundary=False,
        description="a password in SQL (IDENTIFIED BY, SET PASSWORD) or given to htpasswd -b, "
        "smbclient -U user%..., mongosh -p, wpa_passphrase SSID",
    ),
    Rule(
        "command_line_password",
        # a server's user and password in its own file, where no shell ends the value early:
        # HAProxy's userlist (user NAME insecure-password ...), a Redis users.acl or
        # redis.conf line (user NAME on ... >...)
        r"(?:(?<![\w\-])user[ \t]+[^\s<>\[\]]+[ \t]+insecure-password[ \t]+"
        r"|(?m:^)[ \t]*(?:[-*][ \t]+)?user[ \t]+\S+(?:[ \t]+[^\s>]\S*){0,20}?[ \t]+on"
        r"(?:[ \t]+[^\s>]\S*){0,20}?[ \t]+>)(?!\{\{)(?P<secret>\S{4,128})",
        ("insecure-password", "on >"),
        kind="credential",
        lines=True,
        boundary=False,
        description="a password set for a server's user: HAProxy insecure-password, Redis ACL >...",
    ),
    Rule(
        "command_line_password",
        # a user's password set by a command: Redis's ACL SETUSER NAME ... >... (quoted, or
        # its > escaped, from a shell); Windows' net user NAME ... [/add], where a command
        # starts (not "The net user base expanded"; not "*", which asks), the password ending
        # its line or followed by an option or the shell's next word; MinIO's client (mc
        # alias set ALIAS URL ACCESS_KEY SECRET_KEY; mc config host add, before it)
        r"(?:(?i:\bacl[ \t]+setuser)[ \t]+\S+(?:[ \t]+(?![\"']?>|\\>)\S+){0,20}?[ \t]+"
        r"[\"']?\\?>"
        r"|(?:(?m:^)[ \t]*(?:[-*][ \t]+|(?:PS[ \t]+)?\S*[>$#][ \t]*|`)?|(?<=[&|;`(])[ \t]*)"
        r"(?i:net(?:\.exe)?[ \t]+user)[ \t]+(?:\"[^\"\n]{1,64}\"|[^\s\"/*]{1,64})[ \t]+"
        r"(?![/*]|[\d.,]+(?:\s|$))"  # (a number: "net user count 4512" in a report)
        r"(?=(?:\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'`&|>]+)[ \t]*(?:$|\r?\n|/[A-Za-z]|[&|`]|\d?>))"
        r"|(?<![^\s`$(\"';&|/])mc(?:li)?(?:\.exe)?(?:[ \t]+--?[\w\-]+)*[ \t]+"
        r"(?:alias[ \t]+set|config[ \t]+host[ \t]+add)(?:[ \t]+--?[\w\-]+)*[ \t]+[^\s\-]\S*"
        r"[ \t]+(?:\\\r?\n[ \t]*)?https?://\S+[ \t]+(?:\\\r?\n[ \t]*)?"
        # (not an option, which makes mc ask for the keys)
        r"(?:\{\{[^}\n]*\}\}|[^\s\-{]\S*)[ \t]+(?:\\\r?\n[ \t]*)?(?!-)"
        # aws [options] ssm put-parameter ... --value ... --type SecureString, in any order
        # (over lines ending in \; a quoted value may hold ; & |), not a file's name
        r"|(?<![^\s`$(\"';&|/])aws(?:[ \t]+--?[\w\-]+(?:[ \t]+[^\s\-]\S*)?)*?[ \t]+ssm[ \t]+"
        r"put-parameter(?=[ \t])(?=" + _SHELL_WORDS + r"{0,400}?[ \t]--type(?:[ \t]+|=)"
        r"[\"']?SecureString)" + _SHELL_WORDS + r"{0,400}?[ \t]--value(?:[ \t]+|=)"
        r"(?![\"']?(?:-|fileb?://)))" + _COMMAND_VALUE,
        ("setuser", "net user", "net.exe user", "alias set", "host add", "put-parameter"),
        kind="credential",
        lines=True,
        window=8,  # (put-parameter's --value on a line after, a \ ending each before it)
        boundary=False,
        description="a password set by a command: Redis ACL SETUSER >..., net user, MinIO's "
        "mc alias set secret key, aws ssm put-parameter --value of a SecureString",
    ),
    Rule(
        "sensitive_assignment",
        _PRE_SHARED_KEY,
        ("psk",),
        kind="pre_shared_key",
        lines=True,
        needs="=:",
        boundary=False,
        description='psk="literal", : PSK "literal", a pre-shared key',
    ),
    Rule(
        "pgpass_entry",
        # host:port:database:user:password, as libpq's password file lists them (a \ escapes
        # a : or \ inside a field); known by PostgreSQL's port (each keyword costs every text
        # ingested a little: other ports, and *, are not looked for); or echoed into one
        # (echo "host:5432:db:user:..." >> ~/.pgpass)
        r"(?m:^)[ \t]*(?:[-*][ \t]+)?(?:echo[ \t]+(?:-[ne]{1,2}[ \t]+)?(?P<q>[\"']?))?"
        r"(?:[^:\s#\\\"']|\\.)(?:[^:\s\\\"']|\\.){0,254}:5432:"
        r"(?:[^:\s\\\"']|\\.){1,255}:(?:[^:\s\\\"']|\\.){1,255}:"
        # (the rest of the line: an unescaped ":" in the password is read as libpq reads it)
        r"(?P<secret>(?:[^\s\\\"']|\\.){1,255})(?(q)(?P=q))[ \t]*(?=\r?(?:\n|$)|>)",
        (":5432:",),
        kind="credential",
        lines=True,
        boundary=False,
        description="a PostgreSQL password file's line: host:port:database:user:password",
    ),
    _generic(_LINE_VALUE, "=:", "key = literal, the rest of the line", kind="line_value"),
    _generic(
        _CONNECTION_FIELD,
        ",",
        "...;Password=lit,eral;, a connection string's field",
        kind="fallback",  # (delimited by the string's ";" as a literal is by its quotes)
        holds=("pass", "pwd"),
        starts=(";",),
    ),
    _generic(
        _ASSIGN,
        "=:<\"'`",
        "A secret-named key assigned a literal value",
        # the key: a word of its characters with a stem at most 64 characters in
        starts=_GENERIC_WORDS,
        word=".-$@",
        reach=64,
    ),
    _generic(
        _DIRECTIVE,
        " \t",
        "NAME literal, a setting's line: requirepass, ENV",
        kind="directive",
    ),
    _generic(
        _WRAPPED,
        "(",
        'key = (\n"literal"\n), wrapped',
        window=1,
        holds=("(\n", "(\r\n"),
        starts=_GENERIC_WORDS,
        word=".-$@",
        reach=64,
    ),
    _generic(_COMPARE_REVERSED, "=", "A literal compared with a secret-named name"),
    _generic(_XML_ELEMENT, "<", "<password>literal</password>", window=2),
    _generic(
        _XML_NAMED_ELEMENT,
        "<",
        '<property name="password">literal</property>',
        window=2,
        kind="named_element",
        holds=("name", "key"),
        starts=("<",),
    ),
    _generic(_XML_ATTRIBUTE, "=", '<Password value="literal"/>, key="Password" value="..."'),
    _generic(_SETTER, "(", 'setPassword("literal"), set_api_key("literal")', holds=("set",)),
    _generic(
        _CLI_FLAG,
        "-",
        "--password literal, -storepass literal, on a command line",
    ),
    TABLE_CELLS_RULE,
    CSV_COLUMNS_RULE,
    KUBERNETES_SECRET_RULE,
    _generic(_TAB_COLUMNS, "\t", "password<TAB>literal, two tab-separated columns"),
    _generic(
        _NAMED_VALUE,
        ":=",
        "name: DB_PASSWORD, value: literal",
        window=1,
        holds=("name", "key"),
    ),
    _generic(
        _FALLBACK_AFTER,
        "{.([",  # every lookup holds one: {{ key, env.KEY, environ[ / ( "KEY", getenv(, ENV[
        'API_KEY || "literal", a fallback',
        kind="fallback",
        starts=("{{", "env.", "environ", "getenv", "env["),
    ),
    _generic(
        _FALLBACK_AROUND,
        "{(",
        "${DB_PASSWORD:-literal}, a fallback",
        kind="fallback",
        holds=("${", "get", "fetch"),
    ),
    _generic(
        _STATED,
        " \t",
        "the password is <literal>, the API key was <literal>, in a sentence",
        kind="stated",
        holds=("pass", "pw", "key", "token", "secret"),
    ),
    _generic(_LABELLED, ":", "API key for staging: <literal>, a label in notes", kind="label"),
    _generic(
        _LABEL_ABOVE,
        ":",
        "The staging password: then the literal alone on the next line",
        window=2,
        kind="label",
    ),
    _generic(
        _USER_SLASH_PASSWORD,
        "/",
        "creds: user / <literal>",
        kind="stated",
        holds=("cred", "pass"),
    ),
    _generic(
        _STATED_BARE,
        " \t",
        "password <Strong-L1teral!>, no verb",
        kind="stated_bare",
        holds=("pass", "pwd"),
    ),
    _generic(
        _YAML_BLOCK,
        "|>",
        "password: | then the literal, indented, below",
        window=40,
        kind="yaml_block",
    ),
    _generic(
        _YAML_NEXT_LINE,
        ":",
        "password: then the literal alone on the line below, indented",
        window=1,
        kind="yaml_next_line",
    ),
    _generic(_NETRC, " \t", ".netrc: machine HOST login USER password literal", kind="netrc"),
)


def _all_rules() -> tuple[Rule, ...]:
    from substrate.secrets.providers import PROVIDER_RULES

    return KEY_RULES + PROVIDER_RULES + CONTEXT_RULES


RULES: tuple[Rule, ...] = _all_rules()
RULE_NAMES: tuple[str, ...] = tuple(dict.fromkeys(rule.name for rule in RULES))
