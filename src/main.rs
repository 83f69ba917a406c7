fn main() -> std::process::ExitCode {
    mavis::cli::main()
}
