//! The `tally` binary.

use std::process::ExitCode;

use api::cli::{self, Command};
use api::{startup, telemetry, Settings};

/// mimalloc, not the system allocator: cheaper small allocations (docs/adr/0018-memory.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let command = match cli::parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            println!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Command::Version => {
            println!("tally {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("error: configuration: {error}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(&settings.log_format);
    // One worker for the tasks outside the HTTP workers (the relay, the buses, the event handlers):
    // they mostly wait on I/O, and with two workers nearly every wake also woke the idle sibling
    // (docs/adr/0015-pool-parts-per-worker.md).
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async move {
        match command {
            Command::Serve => startup::serve(settings).await,
            Command::Migrate => startup::migrate(settings).await,
            Command::CreateAdmin { email, password, name, promote } => {
                startup::create_admin(settings, email, password, name, promote).await
            }
            Command::Help | Command::Version => Ok(()),
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "tally stopped");
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
