"""External engines: the GTP client and finding their programs (GNU Go, michi-c, any GTP engine).

Low in the layers because a corpus generator, the dead-stone labeller, the
rules check and the match runner all talk to GNU Go; none of them should
have to import the others to do it.
"""
