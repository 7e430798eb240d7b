@_exported import OutpostCore
