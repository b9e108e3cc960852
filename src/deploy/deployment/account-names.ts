// Account names as each platform writes them: deployment.json `developers` and `broker`.

/** POSIX account names as shadow-utils accepts them (a trailing `$` marks a Samba machine account). */
export const POSIX_ACCOUNT = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?$/;
/** Windows: an optional `DOMAIN\` prefix, then a name without the characters Windows refuses. */
export const WINDOWS_ACCOUNT = /^(?:[^\\/\x00-\x1f"[\]:;|=,+*?<>]+\\)?[^\\/\x00-\x1f"[\]:;|=,+*?<>]{1,104}$/;
