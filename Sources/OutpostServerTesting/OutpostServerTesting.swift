@_exported import OutpostServer
