//! Database locations: which name a PostgreSQL server, and how one is shown.

/// Whether a database location names a PostgreSQL server.
pub fn is_postgres_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// The URL with any password replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let shown_authority = match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{name}:***@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    // A password may also be a query parameter.
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some(("password", _)) => "password=***".to_string(),
                    _ => kv.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{shown_authority}{tail}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_are_never_shown() {
        assert_eq!(
            super::redact("postgres://u:p@h/db?password=p&sslmode=require"),
            "postgres://u:***@h/db?password=***&sslmode=require"
        );
        assert!(super::is_postgres_url("postgresql://h/db"));
        assert!(!super::is_postgres_url(".rigor/history.db"));
    }
}
