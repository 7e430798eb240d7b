print("outpost-demo")
