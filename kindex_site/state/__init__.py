"""What a later build reuses, in one package: the handle a build is given (`reuse.Reuse`), the files it
keeps beside the output folder (`files`), the records stored in them or kept in memory (`records`,
`rows`, `templates`, `highlights`), and a resident builder's last clean load (`loadstate`).
DEVELOPERS.md, "Reuse: one door", draws it. Nothing here is imported until asked for: a no-op build
imports `reuse` and `files` alone (standard library only)."""
