#!/usr/bin/env python3
"""Test bot (folder "broken_build"): never started, because its build fails."""

import sys

sys.exit("this bot should never run")
