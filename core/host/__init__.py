"""The program's place on the host: per-user folders (:mod:`~mechstudio.core.host.userdirs`) and logging
(:mod:`~mechstudio.core.host.log`)."""
