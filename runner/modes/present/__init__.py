"""`demorun present`: the opening before the shell is up, then the live show, the notes channel and sections."""
