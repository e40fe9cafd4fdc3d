"""Passwords given to commands or set by them: ``curl -u user:...``, ``mysql -p...``,
``sshpass -p``, a password piped to ``chpasswd`` or ``sudo -S``, SQL's ``IDENTIFIED BY``, a
server's user set with its password (HAProxy, Redis ACLs, ``net user``), MinIO's ``mc alias
set`` and a SecureString given to ``aws ssm put-parameter``.
"""

from __future__ import annotations

from substrate.secrets.rule import Rule

# sudo and its options, before a command
_SUDO = r"(?:sudo(?:[ \t]+-\w+)*[ \t]+)?"
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

PASSWORD_COMMAND_RULES: tuple[Rule, ...] = (
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
)
