"""click's table of the commands runner/launch.py starts before click loads: written by
tools/fast_table.py from runner/cli.py, and checked against it by tests/test_launch.py."""

COMMANDS: dict = {'lint': {'arguments': [('paths', -1)], 'options': {'--no-init': ('no_init', 'flag', False, False)}},
 'present': {'arguments': [('file', 1), ('args', -1)],
             'options': {'--canned': ('canned', 'flag', False, False),
                         '--catch-up-timeout': ('catch_up_timeout', 'duration', False, False),
                         '--debug': ('debug', 'flag', False, False),
                         '--from': ('start_at', 'text', False, False),
                         '--isolate': ('isolate', 'flag', False, False),
                         '--kubeconfig': ('kubeconfig', 'path', True, False),
                         '--marks': ('marks', 'flag', False, False),
                         '--no-blurb': ('no_blurb', 'flag', False, False),
                         '--no-builtins': ('no_builtins', 'flag', False, False),
                         '--no-init': ('no_init', 'flag', False, False),
                         '--notes': ('notes', 'text', False, False),
                         '--record': ('record', 'path', False, False),
                         '--requires': ('requires', 'text', False, True),
                         '--speed': ('speed', 'speed', False, False),
                         '--timeout': ('timeout', 'duration', False, False),
                         '--timings': ('timings', 'optional', False, False)}}}
