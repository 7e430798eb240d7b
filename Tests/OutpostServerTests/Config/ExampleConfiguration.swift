/// The full example of `docs/configuration.md` (keep the two in step).
let exampleConfigurationText = #"""
{
  "app_id": "tasks-app",
  "name": "Tasks",
  "auth": {
    "anonymous": { "enabled": true },
    "email_password": { "enabled": true, "auto_confirm": false },
    "api_keys": { "enabled": true },
    "access_token_lifetime_seconds": 1800,
    "refresh_token_lifetime_days": 60,
    "throttling": {
      "failed_logins_per_account": 10,
      "failed_logins_per_address": 100,
      "new_users_per_address": 100,
      "window_seconds": 300
    }
  },
  "sync": {
    "mode": "flexible",
    "queryable_fields_names": ["_id", "complexity", "ownerId"],
    "collection_queryable_fields_names": { "Item": ["itemName"] },
    "indexed_queryable_fields_names": ["ownerId"],
    "development_mode_enabled": false
  },
  "schema": {
    "Item": {
      "title": "Item",
      "bsonType": "object",
      "required": ["_id", "ownerId", "itemName", "complexity"],
      "properties": {
        "_id": { "bsonType": "objectId" },
        "ownerId": { "bsonType": "string" },
        "itemName": { "bsonType": "string" },
        "complexity": { "bsonType": "int" }
      }
    }
  },
  "rules": {
    "Item": {
      "roles": [
        {
          "name": "owner-read-write",
          "apply_when": {},
          "document_filters": {
            "read": { "ownerId": "%%user.id" },
            "write": { "ownerId": "%%user.id" }
          },
          "read": true,
          "write": true
        }
      ]
    }
  },
  "default_rule": {
    "roles": [
      {
        "name": "read-only",
        "apply_when": {},
        "document_filters": { "read": true, "write": false },
        "read": true,
        "write": false
      }
    ]
  },
  "data_api": { "enabled": true }
}
"""#
