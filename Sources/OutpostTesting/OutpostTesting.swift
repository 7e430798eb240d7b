import Outpost
