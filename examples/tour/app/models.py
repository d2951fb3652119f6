class User:
    def __init__(self, name):
        self.name = name

    def save(self):
        return self.name

    def display(self):
        return self.name.title()
