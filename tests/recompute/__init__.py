"""An independent recomputation of the site's statistics from the about page's text (content/pages/about.md).

Nothing here imports the product's code: `inputs` reads the content, the settings and the built API with
the json and tomllib modules, `rules` states each rule of the about page once, and `check` compares what
the rules give with what the API says, one function per rule, as a list of `Difference`s.
"""
