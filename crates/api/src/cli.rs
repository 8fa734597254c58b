//! Command line: `tally [serve|migrate|create-admin|--help|--version]`.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Serve,
    Migrate,
    CreateAdmin { email: String, password: String, name: Option<String>, promote: bool },
    Help,
    Version,
}

pub const USAGE: &str = "\
Tally: customers, sales pipeline, orders and stock behind a JSON REST API.

Usage:
  tally [serve]                 apply migrations, seed reference data and serve HTTP (default)
  tally migrate                 apply pending database migrations and exit
  tally create-admin --email E --password P [--name N] [--promote]
                                ensure an active user holding the admin and superadmin roles;
                                --promote makes an existing non-admin account an admin (its
                                password is set to P and its sessions end)
  tally --help                  show this text
  tally --version               show the version

Configuration comes from environment variables; see README.md.";

/// Parses the arguments after the program name.
pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Command, String> {
    let args: Vec<String> = args.into_iter().collect();
    let Some(first) = args.first() else {
        return Ok(Command::Serve);
    };
    let rest = &args[1..];
    let command = match first.as_str() {
        "serve" => Command::Serve,
        "migrate" => Command::Migrate,
        "-h" | "--help" | "help" => return Ok(Command::Help),
        "-V" | "--version" | "version" => return Ok(Command::Version),
        "create-admin" => return parse_create_admin(rest),
        other => return Err(format!("unknown command '{other}'; try `tally --help`")),
    };
    match rest.first() {
        None => Ok(command),
        Some(extra) => Err(format!("unexpected argument '{extra}'; try `tally --help`")),
    }
}

fn parse_create_admin(args: &[String]) -> Result<Command, String> {
    let (mut email, mut password, mut name, mut promote) = (None, None, None, false);
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        if flag == "--promote" {
            promote = true;
            continue;
        }
        let (key, inline) = match flag.split_once('=') {
            Some((k, v)) => (k, Some(v.to_owned())),
            None => (flag.as_str(), None),
        };
        let slot = match key {
            "--email" => &mut email,
            "--password" => &mut password,
            "--name" => &mut name,
            other => return Err(format!("create-admin: unknown option '{other}'")),
        };
        let value = match inline {
            Some(v) => v,
            None => iter.next().cloned().ok_or_else(|| format!("create-admin: {key} needs a value"))?,
        };
        *slot = Some(value);
    }
    match (email, password) {
        (Some(email), Some(password)) => Ok(Command::CreateAdmin { email, password, name, promote }),
        _ => Err("create-admin needs --email and --password".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_every_command() {
        assert_eq!(parse(args(&[])), Ok(Command::Serve));
        assert_eq!(parse(args(&["serve"])), Ok(Command::Serve));
        assert_eq!(parse(args(&["migrate"])), Ok(Command::Migrate));
        assert_eq!(parse(args(&["--help"])), Ok(Command::Help));
        assert_eq!(parse(args(&["--version"])), Ok(Command::Version));
        assert_eq!(
            parse(args(&["create-admin", "--email", "a@b.c", "--password=secret123", "--name", "Ann"])),
            Ok(Command::CreateAdmin {
                email: "a@b.c".into(),
                password: "secret123".into(),
                name: Some("Ann".into()),
                promote: false
            })
        );
        assert_eq!(
            parse(args(&["create-admin", "--promote", "--email", "a@b.c", "--password", "secret123"])),
            Ok(Command::CreateAdmin { email: "a@b.c".into(), password: "secret123".into(), name: None, promote: true })
        );
    }

    #[test]
    fn rejects_mistakes() {
        assert!(parse(args(&["deploy"])).is_err());
        assert!(parse(args(&["serve", "now"])).is_err());
        assert!(parse(args(&["create-admin", "--email", "a@b.c"])).is_err());
        assert!(parse(args(&["create-admin", "--email"])).is_err());
        assert!(parse(args(&["create-admin", "--mail", "x"])).is_err());
    }
}
