// The outpost-server command line is assembled in `OutpostServerCommand.swift`.
print("outpost-server: not yet assembled")
