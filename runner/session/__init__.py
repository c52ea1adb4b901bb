"""One persistent bash on a pty: framing, terminal I/O and the processes it starts."""
