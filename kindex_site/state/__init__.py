"""What a later build reuses: the handle a build is given (`reuse.Reuse`), its files (`files`), what they and
its memory keep (`records`, `highlights`, `loadstate`). DEVELOPERS.md, "Reuse: one door", draws it."""
