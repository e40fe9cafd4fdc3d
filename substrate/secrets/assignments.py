"""The generic rules: a secret-named key given a literal value, in code, configuration,
markup, tables and notes (``password = "..."``, ``<password>...</password>``, ``| password |
... |``, "the root password is ..."), with two files' own lines: pre-shared keys and
PostgreSQL's password file. Each entry is keyed on the secret stems and tried on the lines
holding one; ``keynames`` and ``verdict`` judge the key and the value it finds.
"""

from __future__ import annotations

from substrate.secrets.keynames import GLUED_NAMES
from substrate.secrets.rule import Rule

# --- building blocks for the generic key = value rules -------------------------------------
# The secret stems of key names: every generic rule's key holds one, on the match's first line.
_STEM = r"(?i:pass|pw|psw|secret|token|key|auth|cred|sess(?:ion)?id)"  # (PHPSESSID: a cookie)
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
# (a run of plain characters is taken whole: giving one back never lets a quote close the
# value, and each taken alone kept a state of the matcher's, hundreds of bytes a character)
_QUOTED = (
    r"""(?:"(?P<sq>(?:[^"\\\n]++|\\[^"\n]|"""
    + _ESCAPED_DQ
    + r"""|\\(?="))*)"|'(?P<ss>(?:[^'\n]++|''|'\\'')*)'|`(?P<sb>[^`\n]*)`)"""
)
# An unquoted value runs to whitespace, a quote, a separator or an escape sequence like \n.
# (taken whole, never given back: it ends every pattern it is in, and each character taken
# alone kept a state of the matcher's)
# An ampersand ends it only where a query string's next parameter starts (``&user=``): a
# password may hold one, and cutting there would show the rest of it.
# (a comma or a full stop of Chinese or Japanese ends it too: "...，请勿外传" is a note)
_BARE = r"""(?P<su>(?:[^\s"'`,;&<\\，。；、]++|&(?![\w.\-]+=)|<(?!/)|\\(?![nrt"'\\]))++)"""
# (with the logical assignments: Ruby's ``@password ||= "..."``, ``??=``, ``&&=``, Perl's ``//=``;
# and "key:: value", a Dataview field or a Logseq property, not C++'s "Key::value" nor
# Haskell's "secretKey :: ByteString", a type)
_OPS = (
    r"(?::::=|::=|:=|\?\?=|\?=|\|\|=|&&=|//=|\.=|\+=|=>|===|!==|==|!=|<-|=|(?<![ \t])::(?=[ \t])"
    r"|:(?!:))"
)

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
    r"""(?:[rRbBuUfF]{1,2})?(?:"(?:[^"\\\n]++|\\.)*"|'(?:[^'\\\n]++|\\.)*'|`[^`\n]*`)"""
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
    # ("key:: value" too, a Dataview field or a Logseq property; not C++'s "Key::value")
    + r"[ \t]*(?:=|:(?!:)|(?<![ \t])::(?=[ \t]))[ \t]*"
    r"(?P<su>[^\s\"'`#](?:[^\r\n#]++|(?<![ \t])#)*)"
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
def _stated(gap: str) -> str:
    """The pattern of a password stated in a sentence, ``gap`` between the verb and it."""
    return (
        r"(?<![\w.\-$@])(?P<key>(?i:pass(?:word|phrase)?|passwd|pwd|pw|" + _NAMED_KEY + r"|token))"
        # (said of something in up to three words: "for db01", "for the VPN", "of my bank's
        # app")
        r"(?:[ \t]+(?i:for|of|to)(?:[ \t]+[\w.\-@'\u2019]{1,40}){1,3})?"
        r"(?:(?:[ \t]+(?i:is|was|has[ \t]+been|had[ \t]+been))?[ \t]+(?i:set|changed|reset)"
        r"[ \t]+to|[ \t]*\?[ \t]+(?i:it|that)(?i:['\u2019]s|[ \t]+(?:is|was))|[ \t]+(?i:is|was):?)"
        + gap
        + r"(?:"
        + _QUOTED
        + r"|(?P<su>[^\s\"'`,;<]+))"
    )


_STATED = _stated(r"[ \t]+")
# The same sentence wrapped after its verb, as hard-wrapped notes are: "... the admin password
# is" closing a line, the value opening the next
_STATED_WRAPPED = _stated(r"[ \t]*\r?\n[ \t]*")
# A label in notes, its key perhaps in words and said of something: "API key for staging:
# ...", "password for the VPN: ...", "**Password (prod):** ...". (Not "Password - ...": the
# labelled corpus takes a dash for no assignment.)
_LABEL = (
    # (the look-ahead at the first letters lets a search pass over other places quickly)
    r"(?=[AaBbCcDdPpSs])(?<![\w.\-$@])(?P<key>(?i:(?:private|"
    + _KEY_OWNER
    + r")[ \t]+(?:key|token|secret)|pass(?:word|phrase)|passwd|pw))"
    r"(?P<about>[ \t]+(?i:for|of|on|to)(?:[ \t]+[\w.\-@/'\u2019]{1,40}){1,6})?"
    r"(?:[ \t]*\([^()\n]{1,30}\))?"
    # ("password for the router = ...": said of something, an equals sign apart labels it
    # too; not "password for user=jdoe", a log's field)
    r"(?:\*{1,3})?(?(about)(?:[ \t]*:|[ \t]+=)|[ \t]*:)(?![:=])(?:\*{1,3})?[ \t]*"
)
_LABELLED = _LABEL + r"(?:" + _QUOTED + r"|\*{1,3}(?P<sx>[^\s*]+)\*{1,3}|(?P<su>[^\s\"'`*]\S*))"
# The same label closing its line, its value alone on the next line or the one after a blank
# line, perhaps indented or quoted as code: "The staging password:" then "`Kq7mZ2vL9x`". Words
# there, quoted or not, are an instruction or a command ("`pass show db`"), not a value,
# unless the first is one a generator made ("Kq7mZ2vL9xWp4 until Friday", ``verdict``).
_LABEL_ABOVE = (
    _LABEL + r"\r?\n(?:[ \t]*\r?\n)?[ \t]*"
    r"""(?:"(?P<sq>[^"\s]+)"|'(?P<ss>[^'\s]+)'|`(?P<sb>[^`\s]+)`"""
    r"""|(?P<su>[^\s"'`*#|>\-]\S*)(?P<more>[ \t]+[^\s][^\r\n]*)?)[ \t]*(?=\r?(?:\n|$))"""
)
# A user and a password given together under one name: "creds: deploy / Vb8#qL2mXz7", "Bank
# login: jsmith / S3cure!Pass#2024".
_USER_SLASH_PASSWORD = (
    r"(?=[CcUuLl])(?<![\w.\-$@])(?P<key>(?i:creds?|credentials|login"
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
    # (the look ahead stops where the value must, at a "$": one running on to the line's end
    # from each of "${PASSWORD:-${PASSWORD:-..." was quadratic)
    + r"(?:[\"'][ \t]*(?:,|\)[ \t]*\{)[ \t]*(?=[\"'`])|:?[-=](?=[^}\s\"'`${]++\}))"
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
# A session's cookie: the "sessid" of PHPSESSID, the "sessionid" of Django's and Java's
_SESSION_WORDS = ("sessid", "sessionid")
_GENERIC_WORDS = ("pass", "pw", "psw", "secret", "token", "key", "auth", "cred", *_SESSION_WORDS)


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


# A Wi-Fi or IPsec pre-shared key: wpa_supplicant's psk="..." (hostapd's wpa_psk=...), and
# ipsec.secrets' ": PSK "..."". Only so written: PSK as a stem would find every TLS cipher list
# and changelog that names it ("PSK:-PSK:HIGH", "psk.c:275:21").
_PRE_SHARED_KEY = (
    r"(?:(?<![\w.\-])(?i:(?:wpa_)?psk)[ \t]*=[ \t]*|:[ \t]*PSK[ \t]+(?=[\"']))"
    r"(?:" + _QUOTED + r"|(?P<su>[^\s\"'`#;]+))"
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

ASSIGNMENT_RULES: tuple[Rule, ...] = (
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
    _generic(
        _STATED_WRAPPED,
        "\n",
        "the password is, closing a line, then <literal> opening the next",
        window=1,
        kind="stated",
        holds=("pass", "pw", "key", "token", "secret"),
    ),
    _generic(_LABELLED, ":=", "API key for staging: <literal>, a label in notes", kind="label"),
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
